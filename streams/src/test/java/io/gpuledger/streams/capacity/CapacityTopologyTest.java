package io.gpuledger.streams.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.PlacedJob;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PlacementStatus;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import io.gpuledger.streams.state.LiveStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CapacityTopologyTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** The engine's wall clock at start: after every notice here, since notices dated ahead of it are refused. */
    private static final Instant CLOCK = T0.plus(Duration.ofHours(1));
    private static final Duration MAX_AGE = Duration.ofMinutes(10);
    /** A spot p4d.24xlarge at 12.00 USD an hour: 1.50 per GPU. */
    private static final double GPU_PER_HOUR = 1.5;

    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> usage;
    private TestInputTopic<String, byte[]> notices;
    private TestOutputTopic<String, EnrichedCapacityEvent> enriched;
    private TestOutputTopic<String, byte[]> refusedNotices;
    private TestOutputTopic<String, byte[]> refusedUsage;

    @BeforeEach
    void startDriver() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "capacity-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        driver = new TopologyTestDriver(topology(), props, CLOCK);
        usage = driver.createInputTopic(Topics.USAGE.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        notices = driver.createInputTopic(Topics.CAPACITY_EVENTS.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        enriched = driver.createOutputTopic(Topics.CAPACITY_EVENTS_ENRICHED.name(),
                Topics.CAPACITY_EVENTS_ENRICHED.keySerde().deserializer(),
                Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer());
        refusedNotices = driver.createOutputTopic(Topics.CAPACITY_EVENT_DEAD_LETTERS.name(),
                Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        refusedUsage = driver.createOutputTopic(Topics.USAGE_DEAD_LETTERS.name(),
                Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stopDriver() {
        driver.close();
    }

    private static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        CapacityTopology.addTo(builder, MAX_AGE);
        return builder.build();
    }

    @Test
    void shouldEnrichANoticeWithTheJobsOfItsInstance() {
        // Given an 8-GPU instance: six GPUs train one job, two serve another, each at 1.50 USD/h
        for (int gpu = 0; gpu < 8; gpu++) {
            report(window(gpu, "i-0abc", gpu < 6 ? "train-llm" : "serve-chat", T0));
        }

        // When a spot interruption notice for that instance arrives
        CapacityEvent notice = notice("i-0abc", T0.plusSeconds(90));
        send(notice);

        // Then one enriched event names both jobs, their GPUs and cost, and the instance's total
        List<TestRecord<String, EnrichedCapacityEvent>> out = enriched.readRecordsToList();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key()).isEqualTo("i-0abc");
        EnrichedCapacityEvent event = out.get(0).value();
        assertThat(event.event()).isEqualTo(notice);
        assertThat(event.placementStatus()).isEqualTo(PlacementStatus.CURRENT);
        assertThat(event.jobs()).containsExactly(
                new PlacedJob("train-llm", 6, 9.0),
                new PlacedJob("serve-chat", 2, 3.0));
        assertThat(event.costPerHour()).isEqualTo(12.0);
        assertThat(event.currency()).isEqualTo("USD");
        assertThat(event.unpricedGpus()).isZero();
        assertThat(event.gpus()).extracting(PlacedGpu::gpuUuid)
                .containsExactly("GPU-0", "GPU-1", "GPU-2", "GPU-3", "GPU-4", "GPU-5", "GPU-6", "GPU-7");
        assertThat(event.gpus().get(7)).isEqualTo(
                new PlacedGpu("GPU-7", 7, "A100-40GB", "serve-chat", 1.5, "USD", T0.plusSeconds(60)));
        assertThat(event.placementUpdatedAt()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void shouldNameEachJobOfASharedGpuWithItsPartAndKeepThemInTheStoresBinaryForm() {
        // Given a one-GPU spot instance whose GPU a replica and a notebook shared: 60% and 30% of its 1.50 USD/h
        GpuUsage one = window(0, "i-0one", "x", T0);
        GpuUsage shared = one.toBuilder().job(TelemetrySample.SHARED_JOB, null).jobParts(List.of(
                new JobPart("serve-chat", null, 36, 0.6 * one.cost(), 0, 0),
                new JobPart("notebook-ana", null, 18, 0.3 * one.cost(), 0, 0))).build();
        report(shared);

        // When a spot interruption notice for it arrives
        send(notice("i-0one", T0.plusSeconds(90)));

        // Then the notice names both jobs, each on the GPU for its part of the cost, and no job "shared"
        EnrichedCapacityEvent event = enriched.readValuesToList().get(0);
        assertThat(event.jobs()).extracting(PlacedJob::jobId).containsExactly("notebook-ana", "serve-chat");
        assertThat(event.jobs().get(1).costPerHour()).isCloseTo(0.9, within(1e-9));
        assertThat(event.jobs().get(0).costPerHour()).isCloseTo(0.45, within(1e-9));
        assertThat(event.costPerHour()).isCloseTo(1.5, within(1e-9));
        // And the stores' form keeps the shares in version 2, and a GPU of one job in the first release's form
        PlacedGpu placed = event.gpus().get(0);
        byte[] sharedBytes = InstancePlacement.CODEC.toBytes(new InstancePlacement(List.of(placed)));
        byte[] plainBytes = InstancePlacement.CODEC.toBytes(new InstancePlacement(List.of(PlacedGpu.of(one))));
        assertThat(sharedBytes[0]).isEqualTo((byte) 0xC2);
        assertThat(plainBytes[0]).isEqualTo((byte) 0xC1);
        assertThat(InstancePlacement.CODEC.fromBytes(sharedBytes).gpus()).containsExactly(placed);
        assertThat(GpuAt.CODEC.fromBytes(GpuAt.CODEC.toBytes(GpuAt.of(shared))).gpu().sharedBy())
                .isEqualTo(placed.sharedBy());
        assertThat(PlacementChange.CODEC.fromBytes(PlacementChange.CODEC.toBytes(PlacementChange.placed(placed))))
                .isEqualTo(PlacementChange.placed(placed));
    }

    @Test
    void shouldEnrichTheAgentsWordThatItsInstanceIsStoppingLikeAnyNotice() {
        // Given two GPUs of one job on i-0abc
        report(window(0, "i-0abc", "train-llm", T0));
        report(window(1, "i-0abc", "train-llm", T0));

        // When its agent says, as its host shuts down, that the instance is stopping: no deadline
        Instant at = T0.plusSeconds(90);
        CapacityEvent stopping = new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf("aws", "i-0abc", CapacityEventKind.INSTANCE_STOPPING, at.toString()), "aws",
                "us-east-1", "i-0abc", "p4d.24xlarge", "node-i-0abc", Lifecycle.SPOT,
                CapacityEventKind.INSTANCE_STOPPING, "shutdown", at, null, "agent", null);
        send(stopping);

        // Then it is enriched with the job and its two GPUs at 1.50 USD/h each
        List<EnrichedCapacityEvent> out = enriched.readValuesToList();
        assertThat(out).singleElement().satisfies(event -> {
            assertThat(event.event()).isEqualTo(stopping);
            assertThat(event.jobs()).containsExactly(new PlacedJob("train-llm", 2, 3.0));
        });
        assertThat(refusedNotices.readRecordsToList()).isEmpty();
    }

    @Test
    void shouldEnrichANoticeOfANodeWhoseClockRunsMinutesAheadAndRefuseOneOfAnotherDay() {
        // Given the engine's wall clock at CLOCK
        // When a node whose clock runs 3 minutes fast sends a notice (its deadline 5 minutes ahead),
        // and one whose clock is a day off sends another
        send(notice("i-fast", CLOCK.plus(Duration.ofMinutes(3))));
        send(notice("i-adrift", CLOCK.plus(Duration.ofDays(1))));

        // Then the first is enriched all the same: samples and work reports are held to the engine's
        // 30 s, a notice only to 10 minutes; the second is refused as from the future
        assertThat(enriched.readValuesToList()).extracting(e -> e.event().instanceId()).containsExactly("i-fast");
        List<TestRecord<String, byte[]>> refused = refusedNotices.readRecordsToList();
        assertThat(refused).extracting(TestRecord::key).containsExactly("i-adrift");
        assertThat(header(refused.get(0), DeadLetters.REASON)).startsWith("noticedAt: from the future:")
                .contains("more than 600 s ahead");
    }

    @Test
    void shouldPublishTheEnrichedEventOnTheNoticesArrivalWithoutWaitingForAnyWindow() {
        // Given GPUs twenty seconds into a window that is still open, and no wall-clock time passing
        report(window(0, "i-0abc", "train-llm", T0, 20));
        report(window(1, "i-0abc", "train-llm", T0, 20));

        // When a notice arrives in the middle of that window
        send(notice("i-0abc", T0.plusSeconds(30)));

        // Then it is out already, stamped with its own time, with the GPUs of the open window
        TestRecord<String, EnrichedCapacityEvent> out = enriched.readRecord();
        assertThat(out.timestamp()).isEqualTo(T0.plusSeconds(30).toEpochMilli());
        assertThat(out.value().jobs()).containsExactly(new PlacedJob("train-llm", 2, 3.0));
        assertThat(out.value().placementUpdatedAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(enriched.isEmpty()).isTrue();
    }

    @Test
    void shouldJudgeSilenceByUsageTimeWhateverTheRecordsWereStampedWith() {
        // Given usage windows of an hour ago, written now, as a replay or a producer stamping at send time does
        Instant now = T0.plus(Duration.ofHours(1));
        for (int gpu = 0; gpu < 2; gpu++) {
            GpuUsage window = window(gpu, "i-0abc", "train-llm", T0);
            usage.pipeInput(new TestRecord<>(window.gpuUuid(), Json.write(window), now));
        }

        // When the stage looks for silent GPUs, and a notice of that time arrives
        driver.advanceWallClockTime(Duration.ofMinutes(1));
        send(notice("i-0abc", T0.plusSeconds(90)));

        // Then the GPUs are still placed: they are silent only once newer usage of others says so
        assertThat(enriched.readValue().jobs()).containsExactly(new PlacedJob("train-llm", 2, 3.0));
    }

    @Test
    void shouldPublishANoticeForAnUnknownInstanceWithAnEmptyPlacementSayingSo() {
        // Given usage of one instance only
        report(window(0, "i-0abc", "train-llm", T0));

        // When a notice arrives for an instance never seen
        send(notice("i-0new", T0.plusSeconds(90)));

        // Then it is published all the same, saying the placement is unknown
        TestRecord<String, EnrichedCapacityEvent> out = enriched.readRecord();
        assertThat(out.key()).isEqualTo("i-0new");
        assertThat(out.value().placementStatus()).isEqualTo(PlacementStatus.UNKNOWN);
        assertThat(out.value().placementUpdatedAt()).isNull();
        assertThat(out.value().gpus()).isEmpty();
        assertThat(out.value().jobs()).isEmpty();
        assertThat(out.value().costPerHour()).isZero();
        assertThat(out.value().currency()).isNull();
    }

    @Test
    void shouldTakeAGpuThatMovedToAnotherInstanceOffTheOneItLeft() {
        // Given two GPUs on i-0abc, one of which reports from i-0def in the next window
        report(window(0, "i-0abc", "train-llm", T0));
        report(window(1, "i-0abc", "train-llm", T0));
        report(window(0, "i-0abc", "train-llm", T0.plusSeconds(60)));
        report(window(1, "i-0def", "train-llm", T0.plusSeconds(60)));

        // When both instances get a notice
        send(notice("i-0abc", T0.plusSeconds(150)));
        send(notice("i-0def", T0.plusSeconds(150)));

        // Then each lists only the GPU now on it
        Map<String, List<String>> gpusByInstance = gpusByInstance(enriched.readRecordsToList());
        assertThat(gpusByInstance).isEqualTo(Map.of("i-0abc", List.of("GPU-0"), "i-0def", List.of("GPU-1")));
    }

    @Test
    void shouldNotLetALateUpdateOfAnOlderWindowMoveAGpuBack() {
        // Given a GPU that moved from i-0abc to i-0def
        report(window(1, "i-0abc", "train-llm", T0));
        report(window(1, "i-0def", "train-llm", T0.plusSeconds(60)));

        // When a late re-emission of its window on i-0abc arrives
        report(window(1, "i-0abc", "train-llm", T0));
        send(notice("i-0abc", T0.plusSeconds(150)));
        send(notice("i-0def", T0.plusSeconds(150)));

        // Then the GPU stays where its newest window put it
        List<TestRecord<String, EnrichedCapacityEvent>> out = enriched.readRecordsToList();
        assertThat(out.get(0).value().placementStatus()).isEqualTo(PlacementStatus.UNKNOWN);
        assertThat(gpusByInstance(out)).isEqualTo(Map.of("i-0abc", List.of(), "i-0def", List.of("GPU-1")));
    }

    @Test
    void shouldFollowAGpuThatChangedJobs() {
        report(window(0, "i-0abc", "train-llm", T0));
        report(window(0, "i-0abc", "eval-llm", T0.plusSeconds(60)));

        send(notice("i-0abc", T0.plusSeconds(150)));

        assertThat(enriched.readValue().jobs()).containsExactly(new PlacedJob("eval-llm", 1, 1.5));
    }

    @Test
    void shouldLeaveOutGpusWhoseLatestWindowIsOlderThanTheMaxAge() {
        // Given a GPU last heard from 13 minutes before the notice (more than the maximum age plus
        // the refresh), and one 8 minutes before
        report(window(0, "i-0abc", "train-llm", T0));
        report(window(1, "i-0abc", "train-llm", T0));
        report(window(1, "i-0abc", "train-llm", T0.plusSeconds(300)));

        // When the notice arrives
        send(notice("i-0abc", T0.plusSeconds(840)));

        // Then only the recent GPU is placed on the instance
        EnrichedCapacityEvent event = enriched.readValue();
        assertThat(event.gpus()).extracting(PlacedGpu::gpuUuid).containsExactly("GPU-1");
        assertThat(event.jobs()).containsExactly(new PlacedJob("train-llm", 1, 1.5));
        assertThat(event.costPerHour()).isEqualTo(1.5);
        assertThat(event.placementUpdatedAt()).isEqualTo(T0.plusSeconds(360));
    }

    @Test
    void shouldPassOnAnUnchangedGpuOnlyEveryRefreshYetKeepItPlacedWhileItReports() {
        // Given a GPU that reports a window every minute for twenty minutes, unchanged
        for (int minute = 0; minute < 20; minute++) {
            report(window(0, "i-0abc", "train-llm", T0.plusSeconds(60L * minute)));
        }

        // When a notice arrives a minute after its last window ended
        send(notice("i-0abc", T0.plusSeconds(21 * 60)));

        // Then it is placed, as seen within the refresh of its latest window (T0 + 20 min)
        EnrichedCapacityEvent event = enriched.readValue();
        assertThat(event.placementStatus()).isEqualTo(PlacementStatus.CURRENT);
        assertThat(event.gpus()).extracting(PlacedGpu::gpuUuid).containsExactly("GPU-0");
        assertThat(event.placementUpdatedAt()).isBetween(T0.plusSeconds(20 * 60).minus(
                CapacityTopology.PLACEMENT_REFRESH), T0.plusSeconds(20 * 60));
        assertThat(event.placementUpdatedAt()).as("not every window is passed on").isBefore(T0.plusSeconds(20 * 60));
    }

    @Test
    void shouldSayThePlacementIsOutdatedWhenNoGpuOfTheInstanceReportedRecently() {
        report(window(0, "i-0abc", "train-llm", T0));

        send(notice("i-0abc", T0.plusSeconds(900)));

        EnrichedCapacityEvent event = enriched.readValue();
        assertThat(event.placementStatus()).isEqualTo(PlacementStatus.OUTDATED);
        assertThat(event.placementUpdatedAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(event.gpus()).isEmpty();
        assertThat(event.jobs()).isEmpty();
    }

    @Test
    void shouldForgetInstancesWhoseGpusStoppedReporting() {
        // Given an instance that reported once, and another that goes on reporting for 15 minutes
        report(window(0, "i-0gone", "train-llm", T0));
        for (int minute = 0; minute < 15; minute++) {
            report(window(1, "i-0abc", "train-llm", T0.plusSeconds(60L * minute)));
        }

        // When the stage has looked for silent GPUs, and a late notice for the silent instance arrives
        driver.advanceWallClockTime(Duration.ofMinutes(1));
        send(notice("i-0gone", T0.plusSeconds(900)));

        // Then the stage kept nothing of it
        assertThat(enriched.readValue().placementStatus()).isEqualTo(PlacementStatus.UNKNOWN);
        assertThat(((LiveStore<?>) driver.getStateStore(CapacityTopology.PLACEMENT_STORE)).get("i-0gone")).isNull();
        assertThat(((LiveStore<?>) driver.getStateStore(CapacityTopology.GPU_STORE)).get("GPU-0")).isNull();
        assertThat(((LiveStore<?>) driver.getStateStore(CapacityTopology.PLACEMENT_STORE)).get("i-0abc")).isNotNull();
    }

    @Test
    void shouldRouteCorruptNoticesToTheDeadLetterTopicWithHeaders() {
        // Given a truncated notice, one without its kind, and one keyed by another instance
        byte[] truncated = "{\"schemaVersion\":1,\"eventId\":".getBytes(StandardCharsets.UTF_8);
        byte[] noKind = Json.writeString(notice("i-0abc", T0)).replace("\"kind\":\"SPOT_INTERRUPTION\",", "")
                .getBytes(StandardCharsets.UTF_8);
        byte[] misKeyed = Json.write(notice("i-0abc", T0));
        report(window(0, "i-0abc", "train-llm", T0));

        // When they arrive, followed by a valid notice
        notices.pipeInput(new TestRecord<>("i-0abc", truncated, T0));
        notices.pipeInput(new TestRecord<>("i-0abc", noKind, T0));
        notices.pipeInput(new TestRecord<>("i-0xyz", misKeyed, T0));
        send(notice("i-0abc", T0.plusSeconds(90)));

        // Then each is kept, as received, with why and where it came from
        List<TestRecord<String, byte[]>> refused = refusedNotices.readRecordsToList();
        assertThat(refused).extracting(TestRecord::value).containsExactly(truncated, noKind, misKeyed);
        assertThat(refused).extracting(TestRecord::key).containsExactly("i-0abc", "i-0abc", "i-0xyz");
        assertThat(refused).extracting(record -> header(record, DeadLetters.FIELD))
                .containsExactly("eventId", "kind", "$key");
        assertThat(refused).extracting(record -> header(record, DeadLetters.SOURCE_OFFSET))
                .containsExactly("0", "1", "2");
        assertThat(refused).allSatisfy(record -> {
            assertThat(header(record, DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.CAPACITY_EVENTS.name());
            assertThat(header(record, DeadLetters.SOURCE_PARTITION)).isEqualTo("0");
        });
        assertThat(header(refused.get(0), DeadLetters.REASON)).startsWith("eventId: invalid CapacityEvent");
        assertThat(header(refused.get(1), DeadLetters.REASON)).contains("kind");
        assertThat(header(refused.get(2), DeadLetters.REASON))
                .isEqualTo("$key: record key 'i-0xyz' must be 'i-0abc', the record's own identity, "
                        + "so that all its records share a partition");
        // And counted, in the engine's dead-letter metric for notices
        assertThat(driver.metrics().entrySet()).filteredOn(e -> e.getKey().name().equals("dead-letters-total")
                && "capacity-events".equals(e.getKey().tags().get("gpuledger-id")))
                .singleElement().satisfies(e -> assertThat(((Number) e.getValue().metricValue()).doubleValue())
                        .isEqualTo(3.0));
        // and the valid notice after them is still enriched, once
        assertThat(enriched.readValuesToList()).extracting(EnrichedCapacityEvent::placementStatus)
                .containsExactly(PlacementStatus.CURRENT);
    }

    @Test
    void shouldRefuseACopyOfANoticePublishedAlreadyAndEnrichTheNextNoticeOfTheInstance() {
        // Given an instance's notice, enriched
        report(window(0, "i-0abc", "train-llm", T0));
        CapacityEvent notice = notice("i-0abc", T0.plusSeconds(30));
        send(notice);

        // When the same notice comes again, then a later notice of the instance (a new deadline)
        send(notice);
        send(notice("i-0abc", T0.plusSeconds(60)));

        // Then the copy is kept with the reason and counted, and the two notices are enriched once each
        List<TestRecord<String, byte[]>> refused = refusedNotices.readRecordsToList();
        assertThat(refused).singleElement().satisfies(record -> {
            assertThat(record.value()).isEqualTo(Json.write(notice));
            assertThat(header(record, DeadLetters.REASON)).isEqualTo("eventId: duplicate: notice " + notice.eventId()
                    + " of instance i-0abc was published already");
            assertThat(header(record, DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
        });
        assertThat(enriched.readValuesToList()).extracting(event -> event.event().noticedAt())
                .containsExactly(T0.plusSeconds(30), T0.plusSeconds(60));
        assertThat(driver.metrics().entrySet()).filteredOn(e -> e.getKey().name().equals("dead-letters-total")
                && "capacity-events-duplicate".equals(e.getKey().tags().get("gpuledger-id")))
                .singleElement().satisfies(e -> assertThat(((Number) e.getValue().metricValue()).doubleValue())
                        .isEqualTo(1.0));
    }

    @Test
    void shouldForgetTheNoticesOfAnInstanceNoticedADayBeforeTheLatestNotice() {
        // Given an instance's notice a day and an hour before another instance's
        CapacityEvent old = notice("i-old", T0.minus(Duration.ofHours(25)));
        send(old);
        send(notice("i-new", T0));
        // While the instance is remembered, its notice sent again is refused
        send(old);
        assertThat(refusedNotices.readRecordsToList()).hasSize(1);

        // When a minute of wall-clock time passes, the instance is forgotten
        driver.advanceWallClockTime(Duration.ofMinutes(1));
        send(old);

        // Then its notice is no longer judged against it
        assertThat(refusedNotices.isEmpty()).isTrue();
        assertThat(enriched.readValuesToList()).extracting(event -> event.event().instanceId())
                .containsExactly("i-old", "i-new", "i-old");
    }

    @Test
    void shouldRouteUsageThatCannotBePlacedToItsDeadLetterTopic() {
        // Given a corrupt usage window and one that names no instance
        byte[] corrupt = "{\"gpuUuid\":\"GPU-0\",".getBytes(StandardCharsets.UTF_8);
        byte[] nowhere = Json.writeString(window(1, "i-0abc", "train-llm", T0))
                .replace("\"instanceId\":\"i-0abc\",", "").getBytes(StandardCharsets.UTF_8);

        // When they arrive, followed by a valid window and a notice
        usage.pipeInput(new TestRecord<>("GPU-0", corrupt, T0));
        usage.pipeInput(new TestRecord<>("GPU-1", nowhere, T0));
        report(window(2, "i-0abc", "train-llm", T0));
        send(notice("i-0abc", T0.plusSeconds(90)));

        // Then both are kept with their reasons, and the valid GPU is placed
        List<TestRecord<String, byte[]>> refused = refusedUsage.readRecordsToList();
        assertThat(refused).extracting(TestRecord::value).containsExactly(corrupt, nowhere);
        assertThat(refused).extracting(record -> header(record, DeadLetters.FIELD))
                .containsExactly("gpuUuid", "instanceId");
        assertThat(header(refused.get(1), DeadLetters.REASON)).isEqualTo("instanceId: is required");
        assertThat(refused).extracting(record -> header(record, DeadLetters.SOURCE_TOPIC))
                .containsOnly(Topics.USAGE.name());
        assertThat(enriched.readValue().gpus()).extracting(PlacedGpu::gpuUuid).containsExactly("GPU-2");
    }

    @Test
    void shouldNameEveryOperatorStoreAndRepartitionTopic() {
        String description = topology().describe().toString();

        assertThat(description).doesNotContain("KSTREAM-").doesNotContain("KTABLE-")
                .contains(CapacityTopology.PLACEMENT_CHANGES + "-repartition")
                .contains(CapacityTopology.PLACEMENT_STORE).contains(CapacityTopology.GPU_STORE);
    }

    @Test
    void shouldRunInTheSameApplicationAsTheStageThatWritesUsage() {
        // Given the capacity stage added to a builder where another stage writes gpu.usage.v1,
        // as the cost engine's usage window does
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("upstream-usage", Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("upstream-source"))
                .to(Topics.USAGE.name(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("upstream-sink"));
        CapacityTopology.addTo(builder, MAX_AGE);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "capacity-composed-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        try (TopologyTestDriver composed = new TopologyTestDriver(builder.build(), props, CLOCK)) {
            GpuUsage window = window(0, "i-0abc", "train-llm", T0);
            composed.createInputTopic("upstream-usage", Serdes.String().serializer(), Serdes.ByteArray().serializer())
                    .pipeInput(new TestRecord<>(window.gpuUuid(), Json.write(window), window.windowEnd()));

            // When a notice arrives
            CapacityEvent notice = notice("i-0abc", T0.plusSeconds(90));
            composed.createInputTopic(Topics.CAPACITY_EVENTS.name(), Serdes.String().serializer(),
                    Serdes.ByteArray().serializer())
                    .pipeInput(new TestRecord<>(notice.instanceId(), Json.write(notice), notice.noticedAt()));

            // Then it is enriched with the usage the other stage wrote
            EnrichedCapacityEvent event = composed.createOutputTopic(Topics.CAPACITY_EVENTS_ENRICHED.name(),
                    Topics.CAPACITY_EVENTS_ENRICHED.keySerde().deserializer(),
                    Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer()).readValue();
            assertThat(event.jobs()).containsExactly(new PlacedJob("train-llm", 1, 1.5));
        }
    }

    private void report(GpuUsage window) {
        usage.pipeInput(new TestRecord<>(window.gpuUuid(), Json.write(window), window.windowEnd()));
    }

    private void send(CapacityEvent notice) {
        notices.pipeInput(new TestRecord<>(notice.instanceId(), Json.write(notice), notice.noticedAt()));
    }

    private static GpuUsage window(int gpu, String instance, String job, Instant start) {
        return window(gpu, instance, job, start, 60);
    }

    /** A GPU's one-minute window from {@code start}, after {@code seconds} of samples at the spot price. */
    private static GpuUsage window(int gpu, String instance, String job, Instant start, double seconds) {
        return GpuUsage.builder().gpu("GPU-" + gpu, gpu, "A100-40GB")
                .placement(new Placement("node-" + instance, instance, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.SPOT))
                .job(job, null).window(start, start.plusSeconds(60)).currency("USD")
                .totals(UsageTotals.builder().samples((long) seconds / 5).sum(Sum.GPU_SECONDS, seconds)
                        .sum(Sum.COST, GPU_PER_HOUR * seconds / 3600).mean(Reading.SM_ACTIVE,
                                new Mean(0.8 * seconds, seconds)).build())
                .build();
    }

    private static CapacityEvent notice(String instance, Instant noticedAt) {
        Instant deadline = noticedAt.plusSeconds(120);
        return new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf("aws", instance, CapacityEventKind.SPOT_INTERRUPTION, deadline.toString()),
                "aws", "us-east-1", instance, "p4d.24xlarge", "node-" + instance, Lifecycle.SPOT,
                CapacityEventKind.SPOT_INTERRUPTION, "terminate", noticedAt, deadline, "aws-imds",
                "{\"action\": \"terminate\", \"time\": \"" + deadline + "\"}");
    }

    private static Map<String, List<String>> gpusByInstance(List<TestRecord<String, EnrichedCapacityEvent>> out) {
        return out.stream().collect(Collectors.toMap(TestRecord::key,
                record -> record.value().gpus().stream().map(PlacedGpu::gpuUuid).toList()));
    }

    private static String header(TestRecord<String, byte[]> record, String name) {
        return DeadLetters.header(record.headers(), name);
    }
}
