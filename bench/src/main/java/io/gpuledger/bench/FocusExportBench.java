package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.UsageException;
import io.gpuledger.finance.FocusAccount;
import io.gpuledger.finance.FocusExport;
import io.gpuledger.finance.FocusFile;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code gpu-ledger bench focus}: how long {@code gpu-ledger export focus} takes over a day of a large fleet. It
 * writes to an embedded broker what the engine sends for such a fleet, one {@link GpuHour} per GPU and hour (a
 * part of the GPUs shared by three jobs, so that their hours make four rows), the work of its jobs that report
 * work by minute ({@link JobEconomics}), and the on-demand prices, then
 * times the export of the whole day to CSV and to Parquet, each several times, in this JVM.
 */
final class FocusExportBench {

    /**
     * The day exported: two days ago, so that every record is within its topic's retention (a week for the jobs'
     * work, as the broker keeps it by default): older ones may be deleted while the benchmark runs.
     */
    private static final Instant DAY = Instant.now().truncatedTo(ChronoUnit.DAYS)
            .minus(Duration.ofDays(2));
    private static final String[] TYPES = {"p5.48xlarge", "p4d.24xlarge", "g6.12xlarge", "g5.48xlarge"};
    private static final double[] PRICES = {98.32, 32.77, 4.6, 16.29};
    private static final int GPUS_PER_INSTANCE = 8;

    private FocusExportBench() {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        int[] gpus = {10_000};
        int[] hours = {24};
        int[] runs = {3};
        double[] shared = {0.0625};
        OptionPairs.read(args, (option, value) -> {
            switch (option) {
                case "--gpus" -> gpus[0] = UsageException.positive(option, value);
                case "--hours" -> hours[0] = UsageException.positive(option, value);
                case "--runs" -> runs[0] = UsageException.positive(option, value);
                case "--shared" -> shared[0] = UsageException.fraction(option, value);
                default -> throw new UsageException("unknown option '" + option + "'");
            }
        });
        Path work = Files.createTempDirectory("gpu-ledger-bench-focus-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS);
            out.printf("embedded broker %s, %d partitions; %d CPUs, load average %s%n", bootstrap,
                    TopicAdmin.DEFAULT_PARTITIONS, Runtime.getRuntime().availableProcessors(),
                    PreloadedTelemetry.loadAverage());
            long started = System.nanoTime();
            long records = preload(bootstrap, gpus[0], hours[0], shared[0]);
            long minutes = (long) reportingJobs(gpus[0], shared[0]).size() * hours[0] * 60;
            out.printf("preloaded %d GPU hours (%d GPUs x %d h, %.1f%% shared) and %d job-minutes of work in %.1f s%n",
                    records, gpus[0], hours[0], shared[0] * 100, minutes, (System.nanoTime() - started) / 1e9);
            Instant to = DAY.plus(Duration.ofHours(hours[0]));
            for (String name : List.of("focus.csv", "focus.parquet")) {
                List<Double> seconds = new ArrayList<>();
                FocusExport.Summary summary = null;
                Path file = work.resolve(name);
                for (int run = 0; run < runs[0]; run++) {
                    long begin = System.nanoTime();
                    summary = new FocusExport(bootstrap, DAY, to, Optional.empty(), Optional.empty(),
                            FocusAccount.DEFAULT, "USD", Duration.ofMinutes(10)).writeTo(file);
                    seconds.add((System.nanoTime() - begin) / 1e9);
                }
                out.printf("export %-13s %d rows (%d with a cost per 1M units), %.1f MB; runs: %s s;"
                        + " best %.0f rows/s%n",
                        name, summary.rows(), withWorkCost(file), Files.size(file) / 1e6, format(seconds),
                        summary.rows() / seconds.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
                Files.deleteIfExists(file);
            }
        } finally {
            Files.deleteIfExists(work);
        }
        return 0;
    }

    /** Rows of the file that carry what their job's work cost: a check that the work was read. */
    private static long withWorkCost(Path file) throws SQLException {
        String source = FocusFile.Format.of(file) == FocusFile.Format.PARQUET ? "read_parquet('" + file + "')"
                : "read_csv('" + file + "', all_varchar = true)";
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + source
                        + " WHERE \"x_CostPer1MUnits\" IS NOT NULL")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static String format(List<Double> seconds) {
        List<String> each = new ArrayList<>();
        seconds.forEach(value -> each.add(String.format(java.util.Locale.ROOT, "%.1f", value)));
        return String.join(", ", each);
    }

    /** The jobs that report work: one training job per four instances, and each shared GPU's inference replica. */
    private static List<String> reportingJobs(int gpus, double shared) {
        List<String> jobs = new ArrayList<>();
        for (int instance = 0; instance * GPUS_PER_INSTANCE < gpus; instance += 4) {
            jobs.add("job-" + instance / 4);
        }
        for (int gpu = 0; gpu < gpus * shared; gpu++) {
            jobs.add("infer-" + gpu);
        }
        return jobs;
    }

    /** Writes the prices, the fleet's hours and its jobs' work by minute; returns how many hours. */
    private static long preload(String bootstrap, int gpus, int hours, double shared) {
        Random random = new Random(42);
        long records = 0;
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                KafkaClientSettings.producer(bootstrap, "bench-focus-preload", 20), new StringSerializer(),
                new ByteArraySerializer())) {
            for (int t = 0; t < TYPES.length; t++) {
                PriceQuote quote = PriceQuote.builder().provider("aws").region("us-east-1").instanceType(TYPES[t])
                        .lifecycle(Lifecycle.ON_DEMAND).gpuCount(GPUS_PER_INSTANCE).pricePerHour(PRICES[t])
                        .currency("USD").validFrom(DAY.minus(Duration.ofDays(30))).source("bench")
                        .observedAt(DAY).build();
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), Json.write(quote)));
            }
            Lifecycle[] lifecycles = Lifecycle.values();
            List<String> reporting = reportingJobs(gpus, shared);
            for (int hour = 0; hour < hours; hour++) {
                Instant start = DAY.plus(Duration.ofHours(hour));
                for (int gpu = 0; gpu < gpus; gpu++) {
                    int instance = gpu / GPUS_PER_INSTANCE;
                    int type = instance % TYPES.length;
                    Placement placement = new Placement("node-" + instance, "i-" + Integer.toHexString(0x100000
                            + instance), TYPES[type], "aws", "us-east-1", lifecycles[instance % lifecycles.length]);
                    double rate = PRICES[type] / GPUS_PER_INSTANCE * (0.5 + random.nextDouble());
                    double sampled = 3600 - random.nextInt(30);
                    double cost = rate * sampled / 3600;
                    UsageTotals totals = UsageTotals.builder().samples(360).sum(Sum.GPU_SECONDS, sampled)
                            .sum(Sum.COST, cost).sum(Sum.IDLE_COST, cost * random.nextDouble() * 0.2)
                            .sum(Sum.UNMONITORED_SECONDS, 3600 - sampled)
                            .sum(Sum.UNMONITORED_COST, rate * (3600 - sampled) / 3600).sum(Sum.ENERGY_KWH, 0.5)
                            .mean(Reading.SM_ACTIVE, new Mean(0.6 * sampled, sampled)).build();
                    boolean isShared = gpu < gpus * shared;
                    List<JobPart> parts = isShared
                            ? List.of(new JobPart("infer-" + gpu, "search", sampled * 0.4, cost * 0.4, 0.2, 0),
                                    new JobPart("notebook-" + gpu, "research", sampled * 0.3, cost * 0.3, 0.15, 0),
                                    new JobPart("eval-" + gpu, "research", sampled * 0.1, cost * 0.1, 0.05, 0))
                            : List.of(new JobPart("job-" + instance / 4, "team-" + instance % 20, sampled, cost,
                                    0.5, 0));
                    String uuid = "GPU-" + String.format("%08x", gpu) + "-bench";
                    GpuHour gpuHour = new GpuHour(uuid, gpu % GPUS_PER_INSTANCE, "H100", placement, start,
                            start.plus(Duration.ofHours(1)), "USD", 1.0, totals, parts);
                    producer.send(new ProducerRecord<>(Topics.HOURS.name(), null, start.toEpochMilli(), uuid,
                            Json.write(gpuHour)));
                    records++;
                }
                // Every minute, the work of the jobs that report it: the training jobs and the inference replicas
                for (int minute = 0; minute < 60; minute++) {
                    Instant at = start.plus(Duration.ofMinutes(minute));
                    for (String job : reporting) {
                        JobEconomics economics = new JobEconomics(job, at, at.plus(Duration.ofMinutes(1)), "USD", 8,
                                480, 0, 0.8, 48, true, Map.of("tokens", 1_000_000.0 + random.nextInt(100_000)),
                                Map.of(), Map.of(), null, 0);
                        producer.send(new ProducerRecord<>(Topics.JOB_ECONOMICS.name(), null, at.toEpochMilli(), job,
                                Json.write(economics)));
                    }
                }
            }
            producer.flush();
        }
        return records;
    }
}
