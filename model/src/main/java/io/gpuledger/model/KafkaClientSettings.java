package io.gpuledger.model;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * How every Kafka client of GPU Ledger reaches a secured cluster: TLS and SASL settings, the same
 * for producers, consumers, admin clients and Kafka Streams, taken from the environment so that
 * every program (agent, price feed, cost engine, alert service, command line) is configured alike.
 *
 * <ul>
 *   <li>{@code GPULEDGER_KAFKA_PROPERTIES_FILE}: a Java properties file of client settings;</li>
 *   <li>{@code GPULEDGER_KAFKA_SETTINGS_DIR}: a directory of settings, one a file, the file named
 *       after the setting and holding its value: a mounted Kubernetes Secret, such as the one
 *       Strimzi makes for a {@code KafkaUser} (its key {@code sasl.jaas.config}), so that a
 *       password never passes through an environment variable; these win over the file;</li>
 *   <li>{@code GPULEDGER_KAFKA_<NAME>}: one setting, its name in upper case with underscores for
 *       dots ({@code GPULEDGER_KAFKA_SECURITY_PROTOCOL=SASL_SSL} is {@code security.protocol});
 *       these win over both.</li>
 * </ul>
 *
 * Only {@code security.protocol} and the {@code ssl.*} and {@code sasl.*} settings are taken: the
 * rest (acknowledgements, isolation, idempotence) is each program's own choice and not the
 * operator's to override by accident; anything else is refused with the name of its source.
 */
public final class KafkaClientSettings {

    public static final String FILE_VARIABLE = "GPULEDGER_KAFKA_PROPERTIES_FILE";
    public static final String DIR_VARIABLE = "GPULEDGER_KAFKA_SETTINGS_DIR";
    private static final String PREFIX = "GPULEDGER_KAFKA_";
    private static final List<String> ALLOWED = List.of("security.protocol", "ssl.", "sasl.");

    private static volatile Map<String, String> fromEnvironment;

    private KafkaClientSettings() {
    }

    /**
     * What every program's producer starts from: this process's security settings, each record
     * acknowledged by all in-sync replicas, idempotent (a retry writes nothing twice), lz4-compressed
     * and sent {@code lingerMs} after the first of its batch. Callers add only what is theirs.
     */
    public static Properties producer(String bootstrapServers, String clientId, int lingerMs) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        applyTo(props);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        return props;
    }

    /** {@code props} with this process's security settings added; returns {@code props}. */
    public static Properties applyTo(Properties props) {
        Map<String, String> settings = fromEnvironment;
        if (settings == null) {
            settings = read(System.getenv());
            fromEnvironment = settings;
        }
        props.putAll(settings);
        return props;
    }

    /**
     * The settings {@code env} names.
     *
     * @throws IllegalArgumentException naming the variable or file entry that is not a security setting,
     *                                  or the file that cannot be read
     */
    public static Map<String, String> read(Map<String, String> env) {
        Map<String, String> settings = new TreeMap<>();
        String file = env.get(FILE_VARIABLE);
        if (file != null && !file.isBlank()) {
            Properties loaded = new Properties();
            try (Reader reader = Files.newBufferedReader(Path.of(file))) {
                loaded.load(reader);
            } catch (IOException e) {
                throw new UncheckedIOException(FILE_VARIABLE + "=" + file + ": cannot be read", e);
            }
            for (String name : loaded.stringPropertyNames()) {
                settings.put(check(name, file + ": " + name), loaded.getProperty(name));
            }
        }
        String dir = env.get(DIR_VARIABLE);
        if (dir != null && !dir.isBlank()) {
            readDirectory(Path.of(dir), settings);
        }
        env.forEach((variable, value) -> {
            if (variable.startsWith(PREFIX) && !variable.equals(FILE_VARIABLE) && !variable.equals(DIR_VARIABLE)) {
                String name = variable.substring(PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
                settings.put(check(name, variable), value);
            }
        });
        return Map.copyOf(settings);
    }

    /**
     * One setting per regular file; hidden entries are skipped (a Secret's volume keeps its
     * current version under {@code ..data}). A value's trailing line break is not part of it.
     */
    private static void readDirectory(Path dir, Map<String, String> settings) {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (!name.startsWith(".") && Files.isRegularFile(file)) {
                    settings.put(check(name, file.toString()), Files.readString(file).stripTrailing());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(DIR_VARIABLE + "=" + dir + ": cannot be read", e);
        }
    }

    private static String check(String name, String source) {
        for (String allowed : ALLOWED) {
            if (allowed.endsWith(".") ? name.startsWith(allowed) : name.equals(allowed)) {
                return name;
            }
        }
        throw new IllegalArgumentException(source + ": '" + name
                + "' is not a Kafka security setting (security.protocol, ssl.*, sasl.*)");
    }
}
