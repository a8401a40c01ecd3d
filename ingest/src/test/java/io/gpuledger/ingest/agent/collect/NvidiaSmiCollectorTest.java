package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class NvidiaSmiCollectorTest {

    @Test
    void shouldReadWhatTheConfiguredCommandPrints() {
        NvidiaSmiCollector collector = new NvidiaSmiCollector(
                "printf '0, GPU-x, Tesla T4, 12, 100, 30.5\\n' # --query-gpu=index,uuid,name,utilization.gpu,"
                        + "memory.used,power.draw",
                Duration.ofSeconds(5));

        Collector.Round round = collector.collect();

        assertThat(round.errors()).isEmpty();
        assertThat(round.readings()).extracting(GpuReading::uuid).containsExactly("GPU-x");
    }

    @Test
    void shouldReadALoopingCommandWithoutStartingItEachRound() {
        // A stand-in for "nvidia-smi ... -lms 100": a header once, then a row per GPU every 100 ms.
        String loop = "echo 'uuid, utilization.gpu [%]'; i=0; while true; do echo \"GPU-a, $((i % 100)) %\"; "
                + "echo \"GPU-b, 5 %\"; i=$((i+1)); sleep 0.1; done # --loop-ms=100";
        try (NvidiaSmiCollector collector = new NvidiaSmiCollector(loop, Duration.ofSeconds(5))) {
            Collector.Round first = collector.collect();
            assertThat(first.errors()).isEmpty();

            // A loop started again each round would print its first row, 0 %, every time
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
                Collector.Round later = collector.collect();
                assertThat(later.readings()).extracting(GpuReading::uuid).containsExactlyInAnyOrder("GPU-a", "GPU-b");
                assertThat(later.readings()).filteredOn(r -> r.uuid().equals("GPU-a")).singleElement()
                        .satisfies(r -> assertThat(r.gpuUtilization()).isPositive());
            });
        }
    }

    @Test
    void shouldStartALoopAgainThatEnded() {
        try (NvidiaSmiCollector collector = new NvidiaSmiCollector(
                "printf 'GPU-a, 7\\n'; exit 3 # --query-gpu=uuid,utilization.gpu --loop=1", Duration.ofSeconds(5))) {
            assertThat(collector.collect().readings()).extracting(GpuReading::uuid).containsExactly("GPU-a");
            // The first round that finds the loop ended says so and starts it again; on a busy
            // machine the process may take a round or two to be seen ended.
            Collector.Round again = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(collector::collect, round -> !round.errors().isEmpty());
            assertThat(again.errors()).anySatisfy(error -> assertThat(error).contains("ended with 3"));
            assertThat(again.readings()).extracting(GpuReading::uuid).containsExactly("GPU-a");
        }
    }

    @Test
    void shouldTurnAFailingCommandIntoAnErrorOfTheRound() {
        Collector.Round missing = new NvidiaSmiCollector("exit 9", Duration.ofSeconds(5)).collect();
        Collector.Round hanging = new NvidiaSmiCollector("sleep 5", Duration.ofMillis(300)).collect();

        assertThat(missing.readings()).isEmpty();
        assertThat(missing.errors()).singleElement().asString().contains("exited with 9");
        assertThat(hanging.errors()).singleElement().asString().contains("did not finish");
    }
}
