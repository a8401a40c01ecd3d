package io.gpuledger.model;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * What one telemetry sample costs to read: the databind reader ({@link Json#read}) against the streaming one
 * ({@link TelemetryJson#read}) and a GPU's own reader ({@link GpuSampleReader}, which takes the repeated identity
 * from the last sample), on samples of one GPU with all their fields set, about 620 bytes
 * each; with {@code shared}, of a GPU time-sliced among two to four jobs, whose samples list them in their
 * allocations (about 830 bytes). Prints numbers; asserts nothing.
 *
 * <pre>
 * ./mvnw -q -B -pl model test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
 * java -cp "model/target/test-classes:model/target/classes:$(cat model/target/classpath.txt)" \
 *     io.gpuledger.model.TelemetryJsonBenchmark [READS PER ROUND, default 200000] [ROUNDS, default 5] \
 *     [shared]
 * </pre>
 *
 * <p>Each reader first reads as many samples as it is measured on, so that the JIT has compiled its hot path; the
 * readers then take turns, round after round, and the best and median rounds of each are reported, in wall time and
 * in the CPU time of the reading thread, which other load on a shared machine changes less.
 */
public final class TelemetryJsonBenchmark {

    /** Distinct samples, so that the parser does not read one same text over and over. */
    private static final int VARIANTS = 1_024;

    private TelemetryJsonBenchmark() {
    }

    public static void main(String[] args) {
        int reads = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        boolean shared = args.length > 2 && args[2].equals("shared");
        List<byte[]> samples = shared ? sharedSamples() : samples();
        System.out.printf("%d samples, %.0f bytes each on average, %d reads a round, %d rounds%n", samples.size(),
                samples.stream().mapToInt(json -> json.length).average().orElse(0), reads, rounds);

        Reader databind = new Reader("Json.read (databind)", json -> Json.read(json, TelemetrySample.class).smActive());
        Reader streaming = new Reader("TelemetryJson.read (bytes)", json -> TelemetryJson.read(json).smActive());
        GpuSampleReader gpu = new GpuSampleReader();
        Reader perGpu = new Reader("GpuSampleReader.read", json -> gpu.read(json).smActive());
        Reader.race(List.of(databind, streaming, perGpu), samples, reads, rounds, "sample");
        System.out.printf("from the bytes: %.1f%% of the databind time (best rounds); the GPU's reader %.1f%%%n",
                100 * streaming.best() / databind.best(), 100 * perGpu.best() / databind.best());
    }

    /**
     * Samples of one MIG slice over time: every field set, readings with the precision collectors give (ratios to
     * four places, power to 0.1 W, memory in MiB, bytes whole), as the simulator writes them; a slice sends
     * nothing over NVLink.
     */
    static List<byte[]> samples() {
        SplittableRandom random = new SplittableRandom(42);
        List<byte[]> samples = new ArrayList<>(VARIANTS);
        for (int i = 0; i < VARIANTS; i++) {
            double sm = random.nextDouble();
            samples.add(Json.write(ContractFixtures.fullSample().toBuilder()
                    .time(ContractFixtures.T0.plusMillis(10_000L * i + random.nextInt(1_000)))
                    .smActive(fourPlaces(sm))
                    .smOccupancy(fourPlaces(sm * 0.7))
                    .dramActive(fourPlaces(random.nextDouble()))
                    .tensorActive(fourPlaces(sm * 0.6))
                    .powerWatts(Math.round(700 * (0.12 + 0.6 * sm) * 10) / 10.0)
                    .memoryUsedBytes(random.nextInt(81_920) * 1_048_576.0)
                    .pcieTxBytesPerSecond((double) random.nextLong(8_000_000_000L))
                    .build()));
        }
        return samples;
    }

    /**
     * The samples of {@link #samples()} from a GPU time-sliced among two to four jobs: the contract's shared job,
     * each job's share by SM time to four places (whole milliseconds of a 10 s interval), a notebook's team sometimes
     * unknown.
     */
    static List<byte[]> sharedSamples() {
        SplittableRandom random = new SplittableRandom(43);
        List<byte[]> samples = new ArrayList<>(VARIANTS);
        for (byte[] json : samples()) {
            List<Allocation> allocations = new ArrayList<>();
            double left = 1;
            for (int k = 1, jobs = 2 + random.nextInt(3); k <= jobs; k++) {
                double share = fourPlaces(left * random.nextDouble() * 0.6);
                left -= share;
                allocations.add(k == 1
                        ? new Allocation("serve-search-00412-1", "search", share, SharePolicy.SM)
                        : new Allocation("notebook-pool-00412-" + k, random.nextInt(5) == 0 ? null : "research",
                                share, SharePolicy.SM));
            }
            samples.add(Json.write(Json.read(json, TelemetrySample.class).toBuilder()
                    .jobId(TelemetrySample.SHARED_JOB).allocations(allocations).build()));
        }
        return samples;
    }

    private static double fourPlaces(double ratio) {
        return Math.round(ratio * 1e4) / 1e4;
    }

    /** One reader, timed in rounds; {@code read} reads a record and returns a number of it. */
    static final class Reader {
        private final String name;
        private final ToDoubleFunction<byte[]> read;
        private final List<Double> microsPerSample = new ArrayList<>();
        private final List<Double> cpuMicrosPerSample = new ArrayList<>();
        /** Keeps what is read in use, so that the JIT cannot drop the reading. */
        private double checksum;

        Reader(String name, ToDoubleFunction<byte[]> read) {
            this.name = name;
            this.read = read;
        }

        /** Warms each reader up, times them in turns, {@code rounds} times, and prints each one's figures. */
        static void race(List<Reader> readers, List<byte[]> inputs, int reads, int rounds, String what) {
            for (Reader reader : readers) {
                reader.run(inputs, reads);
            }
            for (int round = 0; round < rounds; round++) {
                for (Reader reader : readers) {
                    reader.measure(inputs, reads);
                }
            }
            for (Reader reader : readers) {
                System.out.printf("%-32s best %.2f µs, median %.2f µs per %s; CPU best %.2f µs, median %.2f µs"
                        + " (checksum %.6g)%n", reader.name, reader.best(), reader.median(), what,
                        best(reader.cpuMicrosPerSample), median(reader.cpuMicrosPerSample), reader.checksum);
            }
        }

        void run(List<byte[]> samples, int reads) {
            for (int i = 0; i < reads; i++) {
                checksum += read.applyAsDouble(samples.get(i % samples.size()));
            }
        }

        void measure(List<byte[]> samples, int reads) {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long started = System.nanoTime();
            long cpuStarted = threads.getCurrentThreadCpuTime();
            run(samples, reads);
            cpuMicrosPerSample.add((threads.getCurrentThreadCpuTime() - cpuStarted) / 1e3 / reads);
            microsPerSample.add((System.nanoTime() - started) / 1e3 / reads);
        }

        double best() {
            return best(microsPerSample);
        }

        double median() {
            return median(microsPerSample);
        }

        private static double best(List<Double> micros) {
            return micros.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        }

        private static double median(List<Double> micros) {
            double[] sorted = micros.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return sorted[sorted.length / 2];
        }
    }
}
