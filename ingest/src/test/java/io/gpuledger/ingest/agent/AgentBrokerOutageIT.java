package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.ingest.agent.delivery.Delivery;
import io.gpuledger.ingest.agent.delivery.Spool;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.testing.BrokerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running agent loses its broker until it has spooled samples: the embedded broker is stopped
 * and restarted on the same ports while the agent samples eight GPUs ten times a second. Every sample the
 * agent made is on the topic exactly once.
 */
class AgentBrokerOutageIT {

    private static final int GPUS = 8;

    @TempDir
    Path dir;

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.withTopics(2);

    @Test
    void shouldFindEverySampleAfterTheBrokerWasKilledAndRestarted() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("GPULEDGER_CLOUD", "none");
        env.put("GPULEDGER_HOST", "node-outage");
        env.put("GPULEDGER_INSTANCE_TYPE", "p4d.24xlarge");
        env.put("GPULEDGER_PROVIDER", "aws");
        env.put("GPULEDGER_REGION", "us-east-1");
        env.put("GPULEDGER_LIFECYCLE", "on-demand");
        env.put("GPULEDGER_INTERVAL", "0.1");
        env.put("GPULEDGER_DCGM_ENABLED", "false");
        env.put("GPULEDGER_PROGRESS_ENABLED", "false");
        env.put("GPULEDGER_NVIDIA_SMI_COMMAND", fakeNvidiaSmi().toString());
        env.put("GPULEDGER_SPOOL_DIR", dir.resolve("spool").toString());
        AgentConfig config = AgentConfig.load(Optional.empty(), env);
        List<String> problems = new CopyOnWriteArrayList<>();
        // A 16 KiB producer buffer fills within a second of outage: the spool takes the rest.
        Delivery delivery = new Delivery(Delivery.producer(broker.bootstrap(), "agent-outage", 16 * 1024),
                new Spool(dir.resolve("spool"), 64L * 1024 * 1024, 256 * 1024), Duration.ofMillis(100),
                problems::add);
        NodeAgent agent = NodeAgent.create(config, new KafkaSink(delivery), Clock.systemUTC(), problems::add);

        // Given the agent sampling and delivering (ten rounds of eight GPUs on the topic)
        agent.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> delivery.counters().sent() >= GPUS * 10L);
        // When the broker dies until the agent has spooled samples, and comes back
        broker.kafka().stopBroker();
        await().atMost(Duration.ofSeconds(60)).until(() -> delivery.counters().spooled() > 0);
        long spooled = delivery.counters().spooled();
        broker.kafka().restartBroker();
        // And the agent samples ten more rounds with the broker back, then stops and drains
        long beforeBack = agent.counters().samplesCollected();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> agent.counters().samplesCollected() >= beforeBack + GPUS * 10L);
        agent.close();
        await().atMost(Duration.ofSeconds(60)).until(() -> delivery.spooledNow() == 0 && delivery.pending() == 0);
        delivery.close(Duration.ofSeconds(10));

        // Then each sample made is on the topic. A batch the broker wrote but did not acknowledge
        // before it died may be sent again under the producer's next epoch: a copy, which the cost
        // engine refuses by the time it covers, never a loss.
        long made = agent.counters().samplesCollected();
        List<TelemetrySample> received = readTelemetry(made);
        assertThat(spooled).as("samples spooled while the broker was away").isPositive();
        assertThat(made).isGreaterThanOrEqualTo(GPUS * 20L);
        assertThat(received.stream().map(s -> s.gpuUuid() + "@" + s.time()).distinct().count()).isEqualTo(made);
        assertThat(received.size() - made).as("copies sent again after the broker died").isLessThanOrEqualTo(GPUS);
        assertThat(delivery.dropped()).isZero();
        assertThat(problems).isEmpty();
    }

    private Path fakeNvidiaSmi() throws Exception {
        StringBuilder csv = new StringBuilder("index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw "
                + "[W]\n");
        for (int i = 0; i < GPUS; i++) {
            csv.append(i).append(", GPU-0000000").append(i)
                    .append("-0000-4000-8000-000000000000, NVIDIA A100-SXM4-40GB, ")
                    .append(10 * i).append(" %, 1000 MiB, 200.5 W\n");
        }
        Path output = Files.writeString(dir.resolve("smi.csv"), csv.toString());
        Path command = Files.writeString(dir.resolve("nvidia-smi"), "#!/bin/sh\ncat '" + output + "'\n");
        command.toFile().setExecutable(true);
        return command;
    }

    private List<TelemetrySample> readTelemetry(long expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "outage-check");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<TelemetrySample> received = new ArrayList<>();
        try (KafkaConsumer<String, TelemetrySample> consumer = new KafkaConsumer<>(props,
                Topics.TELEMETRY.keySerde().deserializer(), Topics.TELEMETRY.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.TELEMETRY.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long settle = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, settle)) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> received.add(record.value()));
                if (received.size() >= expected && settle == Long.MAX_VALUE) {
                    // Read on a little: a duplicate would come after the expected count.
                    settle = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                }
            }
        }
        return received;
    }
}
