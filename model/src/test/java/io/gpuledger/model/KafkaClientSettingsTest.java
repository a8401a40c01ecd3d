package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSettingsTest {

    @TempDir
    Path dir;

    @Test
    void shouldTakeSecuritySettingsFromAFileAndFromVariablesThatWin() throws Exception {
        // Given a client properties file for SASL over TLS, and one variable overriding its mechanism
        Path file = dir.resolve("client.properties");
        Files.writeString(file, """
                security.protocol=SASL_SSL
                sasl.mechanism=PLAIN
                ssl.truststore.location=/etc/kafka/truststore.jks
                """);
        Map<String, String> env = Map.of(KafkaClientSettings.FILE_VARIABLE, file.toString(),
                "GPULEDGER_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "GPULEDGER_KAFKA_SASL_JAAS_CONFIG", "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "KAFKA_BOOTSTRAP_SERVERS", "kafka-1:9093", "HOME", "/root");

        // When they are read
        Map<String, String> settings = KafkaClientSettings.read(env);

        // Then every client gets them, the variable's mechanism over the file's
        assertThat(settings).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "ssl.truststore.location", "/etc/kafka/truststore.jks"));
    }

    @Test
    void shouldRefuseAnythingButSecuritySettingsNamingWhereItCameFrom() throws Exception {
        assertThatThrownBy(() -> KafkaClientSettings.read(Map.of("GPULEDGER_KAFKA_ACKS", "1")))
                .hasMessageContaining("GPULEDGER_KAFKA_ACKS")
                        .hasMessageContaining("'acks' is not a Kafka security setting");
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "isolation.level=read_uncommitted\n");
        assertThatThrownBy(() -> KafkaClientSettings.read(Map.of(KafkaClientSettings.FILE_VARIABLE, file.toString())))
                .hasMessageContaining("bad.properties: isolation.level");
        assertThatThrownBy(() -> KafkaClientSettings.read(Map.of(KafkaClientSettings.FILE_VARIABLE, "/nonexistent")))
                .hasMessageContaining("cannot be read");
        assertThat(KafkaClientSettings.read(Map.of())).isEmpty();
    }

    /** A Secret mounted as a volume: a file per key, the current version behind hidden links. */
    @Test
    void shouldTakeOneSettingPerFileOfADirectoryBetweenTheFileAndTheVariables() throws Exception {
        // Given the file's settings, a directory as Kubernetes mounts a KafkaUser's Secret (a hidden
        // ..data folder beside the keys), and a variable that overrides the directory's mechanism
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n");
        Path secret = Files.createDirectories(dir.resolve("kafka-user"));
        Files.createDirectories(secret.resolve("..data"));
        Files.writeString(secret.resolve("..data").resolve("password"), "not a setting");
        Files.writeString(secret.resolve("sasl.jaas.config"),
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"b\";\n");
        Files.writeString(secret.resolve("sasl.mechanism"), "SCRAM-SHA-256");
        Map<String, String> env = Map.of(KafkaClientSettings.FILE_VARIABLE, file.toString(),
                KafkaClientSettings.DIR_VARIABLE, secret.toString(),
                "GPULEDGER_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");

        // When they are read
        Map<String, String> settings = KafkaClientSettings.read(env);

        // Then each file is a setting, its line break dropped, the variable winning over the
        // directory and the directory over the file
        assertThat(settings).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" "
                        + "password=\"b\";"));
    }

    @Test
    void shouldRefuseAFileOfTheDirectoryThatIsNoSecuritySetting() throws Exception {
        // Strimzi's Secret holds the bare password too: the manifest mounts only sasl.jaas.config
        Path secret = Files.createDirectories(dir.resolve("whole-secret"));
        Files.writeString(secret.resolve("password"), "secret");
        assertThatThrownBy(() -> KafkaClientSettings.read(Map.of(KafkaClientSettings.DIR_VARIABLE, secret.toString())))
                .hasMessageContaining("password").hasMessageContaining("is not a Kafka security setting");
        assertThatThrownBy(() -> KafkaClientSettings.read(Map.of(KafkaClientSettings.DIR_VARIABLE, "/nonexistent")))
                .hasMessageContaining(KafkaClientSettings.DIR_VARIABLE).hasMessageContaining("cannot be read");
    }
}
