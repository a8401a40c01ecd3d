package io.gpuledger.alerts.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A reader with an instance id is a static member of its group, and a clean stop still leaves the
 * group: only a crash leaves a member for its restart to take back.
 */
class TopicReaderMembershipIT {

    private static final String GROUP = "membership-test";

    @Test
    void aStaticMemberJoinsUnderItsIdAndLeavesTheGroupWhenStopped() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                Producer<String, byte[]> deadLetters = new KafkaProducer<>(
                        KafkaClients.producer(kafka.bootstrapServers(), "membership-dead-letters"),
                        new StringSerializer(), new ByteArraySerializer())) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 2);
            TopicReader reader = new TopicReader("membership",
                    KafkaClients.consumer(kafka.bootstrapServers(), GROUP, Optional.of("alerts-7")),
                    Map.of(Topics.PRICES.name(), record -> null), deadLetters, () -> { }, new SimpleMeterRegistry(),
                    Clock.systemUTC());
            reader.start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(reader::ready);

                assertThat(members(kafka.bootstrapServers())).containsExactly("alerts-7");
            } finally {
                reader.stop();
            }

            assertThat(members(kafka.bootstrapServers())).as("members once stopped").isEmpty();
        }
    }

    private static List<String> members(String bootstrap) throws Exception {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(config)) {
            return admin.describeConsumerGroups(List.of(GROUP)).all().get(30, TimeUnit.SECONDS).get(GROUP).members()
                    .stream().map(member -> member.groupInstanceId().orElse("-")).toList();
        }
    }
}
