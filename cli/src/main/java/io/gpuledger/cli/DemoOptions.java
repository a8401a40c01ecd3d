package io.gpuledger.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code gpu-ledger demo} runs.
 *
 * @param externalBootstrap the cluster named by {@code KAFKA_BOOTSTRAP_SERVERS}; empty: start an embedded broker
 * @param home              the GPU Ledger checkout: where the alert service's jar and the run directory live
 */
record DemoOptions(int gpus, Duration interval, int httpPort, Optional<Path> catalog,
        Optional<String> externalBootstrap, Path home) {

    static DemoOptions parse(String[] args, Map<String, String> env) {
        int gpus = 48;
        Duration interval = Duration.ofSeconds(5);
        int httpPort = 8080;
        Optional<Path> catalog = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--gpus" -> gpus = positive(option, value);
                case "--interval" -> interval = Duration.ofSeconds(positive(option, value));
                case "--http-port" -> httpPort = positive(option, value);
                case "--catalog" -> {
                    Path file = Path.of(value);
                    if (!Files.isReadable(file)) {
                        throw new UsageException("--catalog " + value + ": no readable file there");
                    }
                    catalog = Optional.of(file);
                }
                default -> throw new UsageException("unknown option '" + option + "'");
            }
        }
        Optional<String> bootstrap = Optional.ofNullable(env.get("KAFKA_BOOTSTRAP_SERVERS")).filter(s -> !s.isBlank());
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize();
        return new DemoOptions(gpus, interval, httpPort, catalog, bootstrap, home);
    }

    private static int positive(String option, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number > 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes a positive whole number, not '" + value + "'");
    }
}
