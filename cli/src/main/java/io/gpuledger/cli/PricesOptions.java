package io.gpuledger.cli;

import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.ReservedTerm;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.PriceQuote;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code gpu-ledger prices} reads and where it publishes.
 *
 * @param skyPilot     SkyPilot catalogs, each with the provider it describes
 * @param confirmEvery how old the last confirmation of a price in force may grow before a round
 *                     publishes it again as confirmed
 * @param bootstrap    the cluster named by {@code KAFKA_BOOTSTRAP_SERVERS}; empty is allowed only for a dry run
 */
record PricesOptions(List<Location> catalogs, List<Location> awsSpot, List<Location> azure,
        List<SkyPilotCatalogOption> skyPilot, Optional<Path> instanceTypes, ReservedTerm reservedTerm, boolean watch,
        Duration interval, Duration confirmEvery, boolean dryRun, Optional<String> bootstrap) {

    /** {@code --skypilot aws=catalogs/v6/aws/vms.csv}: the file does not say which cloud it prices. */
    record SkyPilotCatalogOption(String provider, Location location) {
    }

    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(5);

    /** Neither a catalog nor a feed named: the shipped catalog is what there is to publish. */
    boolean shippedCatalogOnly() {
        return catalogs.isEmpty() && awsSpot.isEmpty() && azure.isEmpty() && skyPilot.isEmpty();
    }

    static PricesOptions parse(String[] args, Map<String, String> env) {
        List<Location> catalogs = new ArrayList<>();
        List<Location> awsSpot = new ArrayList<>();
        List<Location> azure = new ArrayList<>();
        List<SkyPilotCatalogOption> skyPilot = new ArrayList<>();
        Optional<Path> instanceTypes = Optional.empty();
        ReservedTerm reservedTerm = ReservedTerm.ONE_YEAR;
        boolean watch = false;
        boolean dryRun = false;
        Duration interval = DEFAULT_INTERVAL;
        Duration confirmEvery = PriceQuote.CONFIRMATION_INTERVAL;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--watch" -> watch = true;
                case "--dry-run" -> dryRun = true;
                default -> {
                    if (i + 1 >= args.length) {
                        throw new UsageException(option.startsWith("--") && known(option)
                                ? option + " needs a value" : "unknown option '" + option + "'");
                    }
                    String value = args[++i];
                    switch (option) {
                        case "--catalog" -> catalogs.add(location(option, value));
                        case "--aws-spot" -> awsSpot.add(location(option, value));
                        case "--azure" -> azure.add(location(option, value));
                        case "--skypilot" -> skyPilot.add(skyPilot(value));
                        case "--instance-types" -> instanceTypes = Optional.of(location(option, value).path());
                        case "--reserved-term" -> reservedTerm = term(option, value);
                        case "--interval" -> interval = Duration.ofSeconds(UsageException.positive(option, value));
                        case "--confirm-every" ->
                                confirmEvery = Duration.ofSeconds(UsageException.positive(option, value));
                        default -> throw new UsageException("unknown option '" + option + "'");
                    }
                }
            }
        }
        if (dryRun && watch) {
            throw new UsageException("--dry-run reads the sources once; leave out --watch");
        }
        if (instanceTypes.isPresent() && !Files.isReadable(instanceTypes.get())) {
            throw new UsageException("--instance-types " + instanceTypes.get() + ": no readable file there");
        }
        Optional<String> bootstrap = Optional.ofNullable(env.get("KAFKA_BOOTSTRAP_SERVERS")).map(String::trim)
                .filter(s -> !s.isEmpty());
        if (!dryRun && bootstrap.isEmpty()) {
            throw new UsageException("prices: KAFKA_BOOTSTRAP_SERVERS is not set; set it to the Kafka cluster to "
                    + "publish to (e.g. KAFKA_BOOTSTRAP_SERVERS=kafka-1:9092), or add --dry-run to only print the "
                            + "quotes");
        }
        return builder().catalogs(catalogs).awsSpot(awsSpot).azure(azure).skyPilot(skyPilot)
                .instanceTypes(instanceTypes).reservedTerm(reservedTerm).watch(watch).interval(interval)
                .confirmEvery(confirmEvery).dryRun(dryRun).bootstrap(bootstrap).build();
    }

    private static boolean known(String option) {
        return List.of("--catalog", "--aws-spot", "--azure", "--skypilot", "--instance-types", "--reserved-term",
                "--interval", "--confirm-every").contains(option);
    }

    private static Location location(String option, String value) {
        Location location;
        try {
            location = new Location(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + " takes a file or an http(s) URL");
        }
        if (location.isHttp()) {
            try {
                location.uri();
            } catch (IllegalArgumentException e) {
                throw new UsageException(option + " " + value + ": not a URL: " + e.getMessage());
            }
        } else if (!Files.isReadable(location.path())) {
            throw new UsageException(option + " " + value + ": no readable file there");
        }
        return location;
    }

    private static SkyPilotCatalogOption skyPilot(String value) {
        int equals = value.indexOf('=');
        if (equals <= 0 || equals == value.length() - 1) {
            throw new UsageException("--skypilot takes PROVIDER=FILE or PROVIDER=URL (e.g. aws=vms.csv), not '" + value
                    + "'");
        }
        String provider = value.substring(0, equals).trim();
        if (!provider.matches("[a-z0-9][a-z0-9-]*")) {
            throw new UsageException("--skypilot: the provider is a lower-case name such as aws, gcp or azure, not '"
                    + provider + "'");
        }
        return new SkyPilotCatalogOption(provider, location("--skypilot", value.substring(equals + 1).trim()));
    }

    private static ReservedTerm term(String option, String value) {
        try {
            return ReservedTerm.parse(option, value);
        } catch (InvalidRecordException e) {
            throw new UsageException(e.getMessage());
        }
    }

    static Builder builder() {
        return new Builder();
    }

    static final class Builder {
        private List<Location> catalogs;
        private List<Location> awsSpot;
        private List<Location> azure;
        private List<SkyPilotCatalogOption> skyPilot;
        private Optional<Path> instanceTypes;
        private ReservedTerm reservedTerm;
        private boolean watch;
        private Duration interval;
        private Duration confirmEvery;
        private boolean dryRun;
        private Optional<String> bootstrap;

        private Builder() {
        }

        Builder catalogs(List<Location> value) { catalogs = value; return this; }
        Builder awsSpot(List<Location> value) { awsSpot = value; return this; }
        Builder azure(List<Location> value) { azure = value; return this; }
        Builder skyPilot(List<SkyPilotCatalogOption> value) { skyPilot = value; return this; }
        Builder instanceTypes(Optional<Path> value) { instanceTypes = value; return this; }
        Builder reservedTerm(ReservedTerm value) { reservedTerm = value; return this; }
        Builder watch(boolean value) { watch = value; return this; }
        Builder interval(Duration value) { interval = value; return this; }
        Builder confirmEvery(Duration value) { confirmEvery = value; return this; }
        Builder dryRun(boolean value) { dryRun = value; return this; }
        Builder bootstrap(Optional<String> value) { bootstrap = value; return this; }

        PricesOptions build() {
            return new PricesOptions(catalogs, awsSpot, azure, skyPilot, instanceTypes, reservedTerm, watch, interval,
                    confirmEvery, dryRun, bootstrap);
        }
    }
}
