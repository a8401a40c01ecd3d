package io.gpuledger.bench;

import io.gpuledger.cli.Demo;
import io.gpuledger.cli.DemoOptions;
import io.gpuledger.cli.UsageException;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.sim.SimulatedInstance;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.LocalPorts;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code gpu-ledger bench latency}: how fast a spot notice becomes an action, and a sample a gauge,
 * on the whole demo stack (embedded broker, cost engine, alert service in its own JVM) under a
 * background load of a simulated fleet sampled every second.
 *
 * <ol>
 *   <li>Capacity notices for the fleet's instances, at a steady rate: from each notice's send to
 *       its {@code EVACUATE} read from {@code gpu.recommendations.v1} ({@code read_committed}).</li>
 *   <li>Probe GPUs that send one sample a minute, each with a value of its own: from the sample's
 *       time to the first read of the GPU's gauge showing it (read four times a second, so the
 *       figure is rounded up to a quarter second; a Prometheus scrape adds its interval). The
 *       probes' series of the gauge's family alone are read, at {@code /api/metrics} with
 *       {@code gpu[]}: the whole of {@code /q/metrics} is costly at a large fleet, paid by Prometheus
 *       once a scrape interval but by the benchmark at every read, on the cores it measures.</li>
 * </ol>
 * Prints a table whose last line is the headline; asserts nothing.
 */
final class LatencyBench {

    private static final int PROBES = 30;
    /** The probes' gauge family, alone, as a Prometheus job naming it in its {@code params} reads it. */
    private static final String GAUGE_FAMILY = "gpuledger_gpu_sm_active_ratio";
    private static final Duration WARMUP = Duration.ofSeconds(60);
    private static final int EVACUATE_TARGET_MS = 150;
    private static final int GAUGE_TARGET_SECONDS = 3;
    /** How often the probes' gauges are read: the figures are rounded up to it. */
    private static final Duration READ_EVERY = Duration.ofMillis(250);

    private LatencyBench() {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        int notices = 300;
        int gpus = 10_000;
        double perSecond = 5;
        int probeMinutes = 3;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--notices" -> notices = UsageException.positive(args[i], args[i + 1]);
                case "--gpus" -> gpus = UsageException.positive(args[i], args[i + 1]);
                case "--rate" -> perSecond = UsageException.positive(args[i], args[i + 1]);
                case "--probe-minutes" -> probeMinutes = UsageException.positive(args[i], args[i + 1]);
                default -> throw new UsageException("bench latency: unknown option '" + args[i] + "'");
            }
        }
        int port = LocalPorts.freePair();
        DemoOptions options = DemoOptions.parse(new String[] {"--gpus", String.valueOf(gpus), "--interval", "1",
                "--http-port", String.valueOf(port), "--spot-interruptions", "0", "--price-changes", "0",
                "--history", "off"},
                Map.of());
        Demo demo = new Demo(new PrintStream(OutputStream.nullOutputStream()));
        try {
            out.printf("starting the demo stack with %d GPUs sampled every second...%n", gpus);
            demo.start(options);
            out.printf("warming up for %d s%n", WARMUP.toSeconds());
            Thread.sleep(WARMUP.toMillis());
            List<Double> evacuations = evacuations(demo, notices, perSecond, out);
            Probes probes = gauges(demo, "http://127.0.0.1:" + port, probeMinutes, out);
            List<Double> gauges = probes.latencies();
            int probesSent = probes.sent();
            out.println();
            out.printf("| from | to | count | p50 ms | p99 ms | max ms |%n|---|---|---|---|---|---|%n");
            row(out, "capacity notice sent", "EVACUATE read (read_committed)", evacuations);
            row(out, "sample's time", "its GPU's gauge at /api/metrics?name[]=gpuledger_gpu_sm_active_ratio&gpu[]=…"
                    + " (read every " + READ_EVERY.toMillis() + " ms)", gauges);
            out.printf(Locale.ROOT, "background: %d GPUs, a sample each second (%d samples/s)%n", gpus, gpus);
            double evacuateP99 = percentile(evacuations, 0.99);
            double gaugeP99 = percentile(gauges, 0.99) / 1000;
            boolean met = evacuations.size() == notices && evacuateP99 <= EVACUATE_TARGET_MS
                    && gauges.size() == probesSent && gaugeP99 <= GAUGE_TARGET_SECONDS;
            out.printf(Locale.ROOT, "EVACUATE p99 %.0f ms (target %d ms), %d of %d notices answered; gauge p99 %.1f s"
                    + " (target %d s), %d of %d probe samples shown: targets %s%n", evacuateP99, EVACUATE_TARGET_MS,
                    evacuations.size(), notices, gaugeP99, GAUGE_TARGET_SECONDS, gauges.size(), probesSent,
                    met ? "met" : "NOT met");
            return 0;
        } finally {
            demo.close();
        }
    }

    /** A notice's send, on the monotonic clock and the wall clock (which its EVACUATE's timestamp is on). */
    private record Sent(long nanos, long epochMillis) {
    }

    /** An answered notice: its time to the EVACUATE read, and to the EVACUATE's timestamp, in ms. */
    private record Answer(double totalMs, long writtenMs, int secondOfMinute) {
    }

    /**
     * Sends {@code count} notices at {@code perSecond}; returns each one's time to its EVACUATE, in ms,
     * and prints the slowest five split at the EVACUATE's timestamp (when the alert service sent it):
     * what the service took against what the broker and the transaction markers took to deliver it.
     */
    private static List<Double> evacuations(Demo demo, int count, double perSecond, PrintStream out)
            throws Exception {
        List<SimulatedInstance> instances = demo.fleet().instances();
        Map<String, Sent> sentAt = new ConcurrentHashMap<>();
        List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        try (KafkaConsumer<String, CloudEvent<Recommendation>> consumer = recommendations(demo.bootstrap());
                KafkaProducer<String, CapacityEvent> producer =
                        Producers.forTopic(Topics.CAPACITY_EVENTS, demo.bootstrap(), "bench-notices")) {
            Instant base = Instant.now().plusSeconds(600);
            long period = Math.round(1e9 / perSecond);
            long next = System.nanoTime();
            int sent = 0;
            long deadline = Long.MAX_VALUE;
            while (answers.size() < count && System.nanoTime() < deadline) {
                if (sent < count && System.nanoTime() >= next) {
                    SimulatedInstance instance = instances.get(sent % instances.size());
                    // Each notice its own deadline: a new situation for the instance, so a new record.
                    Instant noticeDeadline = base.plusMillis(sent);
                    CapacityEvent notice = CapacityEvent.builder()
                            .eventId(CapacityEvent.idOf("aws", instance.instanceId(),
                                    CapacityEventKind.SPOT_INTERRUPTION, "bench-" + sent))
                            .placement(instance.placement()).kind(CapacityEventKind.SPOT_INTERRUPTION)
                            .action("terminate").noticedAt(Instant.now()).deadline(noticeDeadline).source("bench")
                            .build();
                    sentAt.put(instance.instanceId() + " " + noticeDeadline,
                            new Sent(System.nanoTime(), System.currentTimeMillis()));
                    producer.send(new ProducerRecord<>(Topics.CAPACITY_EVENTS.name(), notice.instanceId(), notice));
                    producer.flush();
                    sent++;
                    next += period;
                    if (sent == count) {
                        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    }
                }
                for (ConsumerRecord<String, CloudEvent<Recommendation>> record : consumer.poll(Duration.ofMillis(5))) {
                    Recommendation r = record.value().data();
                    if (r.kind() == RecommendationKind.EVACUATE && r.deadline() != null) {
                        Sent at = sentAt.remove(r.target().id() + " " + r.deadline());
                        if (at != null) {
                            answers.add(new Answer((System.nanoTime() - at.nanos()) / 1e6,
                                    record.timestamp() - at.epochMillis(),
                                    Instant.ofEpochMilli(at.epochMillis()).atZone(ZoneOffset.UTC).getSecond()));
                        }
                    }
                }
            }
        }
        out.printf("notices: %d sent, %d answered; the slowest (ms, of which until the alert service sent it,"
                + " at second s of its minute):", count, answers.size());
        answers.stream().sorted(Comparator.comparingDouble(Answer::totalMs).reversed()).limit(5)
                .forEach(a -> out.printf(Locale.ROOT, " %.0f (%d, s %d)", a.totalMs(), a.writtenMs(),
                        a.secondOfMinute()));
        out.println();
        return answers.stream().map(Answer::totalMs).toList();
    }

    /** The probe samples sent, and the time each of those shown took to reach its gauge, in ms. */
    private record Probes(int sent, List<Double> latencies) {
    }

    /**
     * Probe samples, one a minute per probe GPU: probe k at second 2k of each minute plus a tenth
     * of its 2 s slot for each k mod 10, so that the samples of a run fall at every phase of the
     * engine's 2 s updates (at a fixed phase, every sample of a run waited about as long for its
     * update, and the runs' medians differed by a second). The probes' own series are read every
     * {@link #READ_EVERY}: found by GPU, they cost the service little to write.
     */
    private static Probes gauges(Demo demo, String baseUrl, int minutes, PrintStream out) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        List<Double> latencies = new ArrayList<>();
        List<Integer> secondsOfMinute = new ArrayList<>();
        Map<String, Double> expected = new ConcurrentHashMap<>();
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, Integer> sentAtSecond = new ConcurrentHashMap<>();
        long[] lastMinuteSent = new long[PROBES];
        Arrays.fill(lastMinuteSent, -1);
        int probesSent = 0;
        Placement placement = new Placement("bench-probe", "i-bench-probe", "p4d.24xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND);
        StringBuilder query = new StringBuilder(AlertServiceProcess.family(baseUrl, GAUGE_FAMILY).toString());
        for (int probe = 0; probe < PROBES; probe++) {
            query.append("&gpu%5B%5D=").append(probeGpu(probe));
        }
        HttpRequest read = HttpRequest.newBuilder(URI.create(query.toString())).build();
        long begin = Instant.now().toEpochMilli();
        try (KafkaProducer<String, TelemetrySample> producer =
                Producers.forTopic(Topics.TELEMETRY, demo.bootstrap(), "bench-probes")) {
            long end = System.nanoTime() + Duration.ofMinutes(minutes).toNanos();
            while (System.nanoTime() < end || !sentAt.isEmpty() && System.nanoTime() < end + 30_000_000_000L) {
                Instant now = Instant.now();
                long minute = now.toEpochMilli() / 60_000;
                for (int probe = 0; probe < PROBES && System.nanoTime() < end; probe++) {
                    long due = minute * 60_000 + probe * 2_000L + (probe % 10) * 200L;
                    if (lastMinuteSent[probe] == minute || now.toEpochMilli() < due || due < begin) {
                        continue;
                    }
                    lastMinuteSent[probe] = minute;
                    String gpu = probeGpu(probe);
                    double value = 0.2 + probe / 100.0 + (minute % 50) / 10_000.0;
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu).gpuIndex(probe)
                            .gpuModel("A100-40GB").placement(placement).jobId("bench-probe").time(now)
                            .intervalSeconds(1).smActive(value).build();
                    expected.put(gpu, value);
                    probesSent++;
                    sentAt.put(gpu, System.nanoTime());
                    sentAtSecond.put(gpu, (int) (now.getEpochSecond() % 60));
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), null, now.toEpochMilli(), gpu,
                            sample));
                    producer.flush();
                }
                String metrics = http.send(read, HttpResponse.BodyHandlers.ofString()).body();
                long readAt = System.nanoTime();
                for (String line : metrics.split("\n")) {
                    if (line.startsWith(GAUGE_FAMILY + "{")) {
                        int at = line.indexOf("gpu=\"") + 5;
                        String gpu = line.substring(at, line.indexOf('"', at));
                        double shown = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                        Double wanted = expected.get(gpu);
                        Long sent = sentAt.get(gpu);
                        if (wanted != null && sent != null && Math.abs(shown - wanted) < 1e-9) {
                            latencies.add((readAt - sent) / 1e6);
                            secondsOfMinute.add(sentAtSecond.get(gpu));
                            sentAt.remove(gpu);
                        }
                    }
                }
                Thread.sleep(Math.max(0, READ_EVERY.toMillis() - (System.nanoTime() - readAt) / 1_000_000));
            }
        }
        out.printf("probe samples: %d sent, %d shown; the slowest (ms, at second s of its minute):", probesSent,
                latencies.size());
        IntStream.range(0, latencies.size()).boxed()
                .sorted(Comparator.comparingDouble(latencies::get).reversed()).limit(5)
                .forEach(i -> out.printf(Locale.ROOT, " %.0f (s %d)", latencies.get(i), secondsOfMinute.get(i)));
        out.println();
        if (!sentAt.isEmpty()) {
            out.printf("probe samples never shown: %s%n", new TreeSet<>(sentAt.keySet()));
        }
        return new Probes(probesSent, latencies);
    }

    private static String probeGpu(int probe) {
        return String.format("GPU-bench-probe-%02d", probe);
    }

    private static KafkaConsumer<String, CloudEvent<Recommendation>> recommendations(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaConsumer<String, CloudEvent<Recommendation>> consumer = new KafkaConsumer<>(props,
                Topics.RECOMMENDATIONS.keySerde().deserializer(), Topics.RECOMMENDATIONS.valueSerde().deserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(Topics.RECOMMENDATIONS.name()).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        return consumer;
    }

    private static void row(PrintStream out, String from, String to, List<Double> values) {
        out.printf(Locale.ROOT, "| %s | %s | %d | %.0f | %.0f | %.0f |%n", from, to, values.size(),
                percentile(values, 0.5), percentile(values, 0.99), percentile(values, 1.0));
    }

    /** The nearest-rank percentile; NaN when there is nothing to rank. */
    static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
