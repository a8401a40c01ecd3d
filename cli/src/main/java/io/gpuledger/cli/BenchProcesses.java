package io.gpuledger.cli;

import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline's programs as the benchmarks run them: each in a JVM of its own, with the memory
 * the demo and the compose stack give it, and whatever else an environment variable adds (a
 * larger heap for a larger fleet, a flight recording).
 */
final class BenchProcesses {

    /** Extra JVM options of the cost engine, split on spaces. */
    static final String ENGINE_JVM_OPTIONS = "GPULEDGER_BENCH_ENGINE_JVM_OPTS";

    private BenchProcesses() {
    }

    /** {@code CostEngineMain} in its own JVM ({@code -Xmx1g}), state under {@code work}; not yet awaited. */
    static CostEngineProcess engine(String bootstrap, Path work, String application, int threads) throws IOException {
        List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
        jvm.addAll(extraOptions(ENGINE_JVM_OPTIONS));
        return CostEngineProcess.start(System.getProperty("java.class.path"), jvm,
                List.of("--bootstrap-servers", bootstrap, "--application-id", application,
                        "--state-dir", work.resolve("state-" + application).toString(),
                        "--threads", String.valueOf(threads)),
                work.resolve(application + ".log"));
    }

    private static List<String> extraOptions(String variable) {
        String extra = System.getenv(variable);
        return extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
    }
}
