package io.gpuledger.streams.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's settings with a record that breaks a processor or its output: the record is kept on its input's
 * dead-letter topic with the exception, and the records after it are processed.
 */
class DeadLetterHandlerTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String OUT = "out";

    @TempDir
    Path state;

    private final MockProducer<byte[], byte[]> written = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final DeadLetterSink sink = new DeadLetterSink(written, Duration.ofSeconds(5));
    private TopologyTestDriver driver;

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
        sink.close();
    }

    @Test
    void shouldKeepARecordThatBreaksAProcessorOnItsInputsDeadLettersAndGoOn() {
        // Given the engine's settings, and a processor that fails on "boom"
        TestInputTopic<String, String> telemetry = start(topology("boom", Serdes.String().serializer()));

        // When "boom" comes between two good records, with a header of its own
        telemetry.pipeInput("gpu-1", "a", T0);
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
        telemetry.pipeInput(new TestRecord<>("gpu-1", "boom", headers, T0));
        telemetry.pipeInput("gpu-1", "b", T0);

        // Then the records around it went on, and it is kept on the telemetry dead letters, as received
        ProducerRecord<byte[], byte[]> letter = boomKeptAlone();
        assertThat(new String(letter.key(), StandardCharsets.UTF_8)).isEqualTo("gpu-1");
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.EXCEPTION_CLASS))
                .isEqualTo(IllegalStateException.class.getName());
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.EXCEPTION_MESSAGE)).isEqualTo("cannot judge boom");
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.REASON))
                .isEqualTo("failed in failing: java.lang.IllegalStateException: cannot judge boom");
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.TELEMETRY.name());
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("0");
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
        assertThat(DeadLetters.header(letter.headers(), "trace")).isEqualTo("t-1");
        assertThat(sink.total(DeadLetterSink.PROCESSING)).isEqualTo(1.0);
    }

    @Test
    void shouldKeepARecordWhoseOutputCannotBeSerializedAndGoOn() {
        // Given the engine's settings, and an output that cannot be written for "boom"
        Serializer<String> refusing = (topic, value) -> {
            if (value.equals("boom")) {
                throw new IllegalArgumentException("cannot write boom");
            }
            return value.getBytes(StandardCharsets.UTF_8);
        };
        TestInputTopic<String, String> telemetry = start(topology("never", refusing));

        // When "boom" comes between two good records
        telemetry.pipeInput("gpu-1", "a", T0);
        telemetry.pipeInput("gpu-1", "boom", T0);
        telemetry.pipeInput("gpu-1", "b", T0);

        // Then the records around it went on, and it is kept with the serializer's exception
        ProducerRecord<byte[], byte[]> letter = boomKeptAlone();
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.EXCEPTION_MESSAGE)).isEqualTo("cannot write boom");
        assertThat(DeadLetters.header(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
        assertThat(sink.total(DeadLetterSink.PRODUCTION)).isEqualTo(1.0);
    }

    @Test
    void shouldCountAPunctuationThatFailsAndRunItAgainAtItsNextTime() {
        // Given a processor whose first punctuation fails
        AtomicInteger punctuations = new AtomicInteger();
        start(topology("never", punctuations, Serdes.String().serializer()));

        // When its time comes twice
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        driver.advanceWallClockTime(Duration.ofSeconds(1));

        // Then it ran twice, the failure was counted, and there was no record to keep
        assertThat(punctuations).hasValue(2);
        assertThat(sink.total(DeadLetterSink.PROCESSING)).isEqualTo(1.0);
        assertThat(written.history()).isEmpty();
    }

    @Test
    void shouldFailTheRecordWhenItCannotBeKept() {
        // Given a dead-letter topic that never answers
        MockProducer<byte[], byte[]> silent = new MockProducer<>(false, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        try (DeadLetterSink unanswered = new DeadLetterSink(silent, Duration.ofMillis(50))) {
            TestInputTopic<String, String> telemetry = start(topology("boom",
                    Serdes.String().serializer()), unanswered);

            // When a record breaks the processor, then the engine stops on it rather than pass it over unkept
            assertThatThrownBy(() -> telemetry.pipeInput("gpu-1", "boom", T0)).isInstanceOf(StreamsException.class);
        }
    }

    @Test
    void shouldKeepEachInputsRecordsOnItsOwnDeadLettersAndTheInternalTopicsOnTheUsageOnes() {
        assertThat(DeadLetterSink.deadLettersOf(Topics.TELEMETRY.name())).isEqualTo("gpu.telemetry.dlq.v1");
        assertThat(DeadLetterSink.deadLettersOf(Topics.JOB_PROGRESS.name())).isEqualTo("gpu.job-progress.dlq.v1");
        assertThat(DeadLetterSink.deadLettersOf(Topics.CAPACITY_EVENTS.name())).isEqualTo("gpu.capacity-events.dlq.v1");
        assertThat(DeadLetterSink.deadLettersOf(Topics.USAGE.name())).isEqualTo("gpu.usage.dlq.v1");
        assertThat(DeadLetterSink.deadLettersOf("gpu-ledger-cost-engine-rollup-partials-repartition"))
                .isEqualTo("gpu.usage.dlq.v1");
    }

    /** Checks that "a" and "b" came out and "boom" alone was kept, on the telemetry dead letters; returns it. */
    private ProducerRecord<byte[], byte[]> boomKeptAlone() {
        assertThat(output().readValuesToList()).containsExactly("a", "b");
        assertThat(written.history()).hasSize(1);
        ProducerRecord<byte[], byte[]> letter = written.history().get(0);
        assertThat(letter.topic()).isEqualTo(Topics.TELEMETRY_DEAD_LETTERS.name());
        assertThat(new String(letter.value(), StandardCharsets.UTF_8)).isEqualTo("boom");
        return letter;
    }

    private TestInputTopic<String, String> start(Topology topology) {
        return start(topology, sink);
    }

    /** The topology under the cost engine's own settings, with {@code deadLetters} handed to its handlers. */
    private TestInputTopic<String, String> start(Topology topology, DeadLetterSink deadLetters) {
        Properties props = CostEngineConfig.defaults("127.0.0.1:9", state).toProperties();
        props.put(DeadLetterSink.CONFIG, deadLetters);
        driver = new TopologyTestDriver(topology, props, T0);
        return driver.createInputTopic(Topics.TELEMETRY.name(), Serdes.String().serializer(),
                Serdes.String().serializer());
    }

    private TestOutputTopic<String, String> output() {
        return driver.createOutputTopic(OUT, Serdes.String().deserializer(), Serdes.String().deserializer());
    }

    private static Topology topology(String poison, Serializer<String> out) {
        return topology(poison, null, out);
    }

    /** @param punctuations counts the punctuations, the first of which fails; null: none */
    private static Topology topology(String poison, AtomicInteger punctuations, Serializer<String> out) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(Topics.TELEMETRY.name(), Consumed.with(Serdes.String(), Serdes.String()))
                .processValues(() -> new FailingOn(poison, punctuations), Named.as("failing"))
                .to(OUT, Produced.with(Serdes.String(), Serdes.serdeFrom(out, Serdes.String().deserializer())));
        return builder.build();
    }

    /** Passes records on, but fails on one value, and in its first punctuation when it counts them. */
    private static final class FailingOn implements FixedKeyProcessor<String, String, String> {
        private final String poison;
        private final AtomicInteger punctuations;
        private FixedKeyProcessorContext<String, String> context;

        FailingOn(String poison, AtomicInteger punctuations) {
            this.poison = poison;
            this.punctuations = punctuations;
        }

        @Override
        public void init(FixedKeyProcessorContext<String, String> context) {
            this.context = context;
            if (punctuations != null) {
                context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, now -> {
                    if (punctuations.incrementAndGet() == 1) {
                        throw new IllegalStateException("first punctuation");
                    }
                });
            }
        }

        @Override
        public void process(FixedKeyRecord<String, String> record) {
            if (record.value().equals(poison)) {
                throw new IllegalStateException("cannot judge " + poison);
            }
            context.forward(record);
        }
    }
}
