package io.gpuledger.model;

import io.gpuledger.model.TelemetryJsonBenchmark.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What one usage window costs the alert service to read: the databind reader ({@link Json#read}) against
 * {@link RecordJson#read}, on windows as the cost engine writes them ({@link UsageJson#write}, about 1 KB each,
 * with and without optional readings, prices, teams and MIG shares). Prints numbers; asserts nothing.
 *
 * <pre>
 * ./mvnw -q -B -pl model test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
 * java -cp "model/target/test-classes:model/target/classes:$(cat model/target/classpath.txt)" \
 *     io.gpuledger.model.RecordJsonBenchmark [READS PER ROUND, default 200000] [ROUNDS, default 5]
 * </pre>
 *
 * <p>As {@link TelemetryJsonBenchmark}: each reader first reads as many windows as it is measured on, then the
 * readers take turns, round after round, and the best and median rounds of each are reported.
 */
public final class RecordJsonBenchmark {

    private static final int VARIANTS = 1_024;

    private RecordJsonBenchmark() {
    }

    public static void main(String[] args) {
        int reads = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Random random = new Random(42);
        List<byte[]> windows = new ArrayList<>(VARIANTS);
        for (int i = 0; i < VARIANTS; i++) {
            windows.add(UsageJson.write(UsageJsonTest.usage(random, i)));
        }
        System.out.printf("%d usage windows, %.0f bytes each on average, %d reads a round, %d rounds%n",
                windows.size(), windows.stream().mapToInt(json -> json.length).average().orElse(0), reads, rounds);

        RecordJson<GpuUsage> usage = RecordJson.of(GpuUsage.class);
        Reader databind = new Reader("Json.read (databind)", json -> Json.read(json, GpuUsage.class).cost());
        Reader shortPath = new Reader("RecordJson.read", json -> usage.read(json).cost());
        Reader.race(List.of(databind, shortPath), windows, reads, rounds, "window");
        System.out.printf("RecordJson takes %.1f%% of the databind time (best rounds)%n",
                100 * shortPath.best() / databind.best());
    }
}
