package io.gpuledger.streams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** What a live store's changelog holds after each commit (the test driver commits after each record). */
class LiveStoreChangelogTest {

    private static final String APP = "live-store-changelog";
    private static final String STORE = "tallies";

    /** A tally changed in place, as the engine changes its GPUs' state. */
    private static final class Tally extends LiveStore.Markable {
        long count;
    }

    private static final Codec<Tally> TALLY = new Codec<>() {
        @Override
        public void write(Tally tally, DataOutput out) throws IOException {
            out.writeLong(tally.count);
        }

        @Override
        public Tally read(DataInput in) throws IOException {
            Tally tally = new Tally();
            tally.count = in.readLong();
            return tally;
        }
    };

    /** Adds one to the key's tally, in place once it exists. */
    private static final class Count implements Processor<String, String, Void, Void> {
        private final boolean markByValue;
        private LiveStore<Tally> tallies;

        /** @param markByValue marks through the tally itself, as the engine marks its GPUs' state */
        Count(boolean markByValue) {
            this.markByValue = markByValue;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            tallies = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            Tally tally = tallies.get(record.key());
            if (tally == null) {
                tally = new Tally();
                tallies.put(record.key(), tally);
            } else if (!markByValue) {
                tallies.markDirty(record.key());
            }
            if (markByValue) {
                // marked twice before a commit: written once, as it then stands
                tallies.markDirty(record.key(), tally);
                tallies.markDirty(record.key(), tally);
            }
            tally.count++;
        }
    }

    @Test
    void shouldWriteAValueChangedInPlaceAtEachCommitAfterItWasPut() {
        countAndCheckTheChangelog(false);
    }

    @Test
    void shouldWriteAValueThatRemembersBeingMarkedAtEachCommitItWasMarkedIn() {
        countAndCheckTheChangelog(true);
    }

    /** Does to the key's tally what the record says, in order: {@code put} (a new tally of 1) or {@code delete}. */
    private static final class Edit implements Processor<String, String, Void, Void> {
        private LiveStore<Tally> tallies;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            tallies = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            for (String step : record.value().split(",")) {
                if (step.equals("put")) {
                    Tally tally = new Tally();
                    tally.count = 1;
                    tallies.put(record.key(), tally);
                } else {
                    tallies.delete(record.key());
                }
            }
        }
    }

    @Test
    void shouldWriteNothingForAKeyPutAndDeletedBetweenTwoCommits() {
        try (TopologyTestDriver driver = driverOf(Edit::new)) {
            TestInputTopic<String, String> in = driver.createInputTopic("counted", new StringSerializer(),
                    new StringSerializer());
            TestOutputTopic<String, byte[]> changelog = changelogOf(driver);

            // Each record is processed and committed on its own: its steps lie between two commits.
            in.pipeInput("pending-1", "put,delete");
            in.pipeInput("kept", "put");
            in.pipeInput("kept", "put,delete");
            in.pipeInput("kept", "put,delete");
            in.pipeInput("again", "put,delete,put");
            in.pipeInput("again", "delete,put,delete");

            // pending-1 never reached the changelog: nothing to write, no tombstone. kept was written at one
            // commit, so deleting it at the next leaves a tombstone; once deleted, put and deleted again is
            // nothing. again ends its first commit put; its second ends deleted, a tombstone.
            assertThat(changelog.readKeyValuesToList()).extracting(entry -> entry.key,
                    entry -> entry.value == null ? null : TALLY.fromBytes(entry.value).count)
                    .containsExactly(tuple("kept", 1L), tuple("kept", null), tuple("again", 1L),
                            tuple("again", null));
        }
    }

    private static TopologyTestDriver driverOf(ProcessorSupplier<String, String, Void, Void> processor) {
        Topology topology = new Topology();
        topology.addSource("in", new StringDeserializer(), new StringDeserializer(), "counted");
        topology.addProcessor("count", processor, "in");
        topology.addStateStore(new LiveStoreBuilder<>(STORE, TALLY), "count");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        return new TopologyTestDriver(topology, props);
    }

    private static TestOutputTopic<String, byte[]> changelogOf(TopologyTestDriver driver) {
        return driver.createOutputTopic(APP + "-" + STORE + "-changelog", new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private void countAndCheckTheChangelog(boolean markByValue) {
        try (TopologyTestDriver driver = driverOf(() -> new Count(markByValue))) {
            TestInputTopic<String, String> in = driver.createInputTopic("counted", new StringSerializer(),
                    new StringSerializer());
            TestOutputTopic<String, byte[]> changelog = changelogOf(driver);

            // Given a tally put at one commit; when it is changed in place at each of two more,
            in.pipeInput("GPU-0", "x");
            in.pipeInput("GPU-0", "x");
            in.pipeInput("GPU-0", "x");

            // then each commit wrote it as it then stood: 1, 2 and 3 samples counted.
            assertThat(changelog.readKeyValuesToList()).extracting(entry -> entry.key,
                    entry -> TALLY.fromBytes(entry.value).count)
                    .containsExactly(tuple("GPU-0", 1L), tuple("GPU-0", 2L), tuple("GPU-0", 3L));
        }
    }
}
