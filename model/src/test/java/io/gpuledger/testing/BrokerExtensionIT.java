package io.gpuledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.Topics;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrokerExtensionIT {

    @RegisterExtension
    static final BrokerExtension shared = BrokerExtension.withoutTopics();

    private static String firstTestsBroker;

    @Test
    @Order(1)
    void shouldStartOneBrokerForTheClassWhenHeldInAStaticField() throws Exception {
        firstTestsBroker = shared.bootstrap();

        assertThat(firstTestsBroker).startsWith("127.0.0.1:");
        assertThat(topics(firstTestsBroker)).as("no topics asked for").isEmpty();
    }

    @Test
    @Order(2)
    void shouldKeepTheClasssBrokerForTheNextTest() {
        assertThat(shared.bootstrap()).isEqualTo(firstTestsBroker);
    }

    @Test
    void shouldCreateTheTopicsThenStopTheBrokerAndDeleteItsDataAfterATest() throws Exception {
        // Given the extension as it is called around a test of its own
        BrokerExtension own = BrokerExtension.withTopics(1);
        own.beforeEach(null);
        Path data = own.kafka().dataDir();
        assertThat(topics(own.bootstrap())).contains(Topics.TELEMETRY.name(), Topics.USAGE.name());

        // When the test is over
        own.afterEach(null);

        // Then its broker is gone with its data
        assertThat(data).doesNotExist();
        assertThatThrownBy(own::bootstrap).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no broker is running");
    }

    @Test
    void shouldRefuseTopicsWithoutPartitions() {
        assertThatThrownBy(() -> BrokerExtension.withTopics(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one partition");
    }

    private static Set<String> topics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }
}
