package io.gpuledger.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaIT {

    @Test
    void shouldCarryTransactionalRecordsAndDeleteItsDataOnClose() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start();
        try (kafka) {
            assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("probe", 2, (short) 1))).all().get();
            }

            Properties producerProps = new Properties();
            producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "probe-tx");
            try (var producer = new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("probe", "gpu-0", "hello"));
                producer.commitTransaction();
            }

            Properties consumerProps = new Properties();
            consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "probe-reader");
            consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (var consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of("probe"));
                ConsumerRecords<String, String> records = ConsumerRecords.empty();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (records.isEmpty() && System.nanoTime() < deadline) {
                    records = consumer.poll(Duration.ofMillis(200));
                }
                assertThat(records).extracting(r -> r.key() + "=" + r.value()).containsExactly("gpu-0=hello");
            }
        }
        assertThat(kafka.dataDir()).doesNotExist();
    }

    @Test
    void shouldRunStreamsGroupsWhenStartedForThem() throws Exception {
        // Given a broker started for streams groups
        try (EmbeddedKafka kafka = EmbeddedKafka.startWithStreamsGroups();
                Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            // When asked for its features and its rebalance protocols
            FinalizedVersionRange streams = admin.describeFeatures().featureMetadata().get()
                    .finalizedFeatures().get("streams.version");
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            String protocols = admin.describeConfigs(List.of(broker)).all().get().get(broker)
                    .get("group.coordinator.rebalance.protocols").value();

            // Then streams groups are finalized at level 1 and its coordinator runs them
            assertThat(streams).isNotNull();
            assertThat(streams.maxVersionLevel()).isEqualTo((short) 1);
            assertThat(protocols.split(",")).contains("streams");
        }
    }
}
