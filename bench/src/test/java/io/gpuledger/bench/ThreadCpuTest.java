package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {

    /**
     * Header lines of a JDK 17 thread dump (jcmd PID Thread.print), stacks left out, thread names as the demo has them.
     */
    private static final String BEFORE = """
            2026-12-02 17:05:01
            Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

            "main" #1 prio=5 os_prio=0 cpu=4988.98ms elapsed=192.22s tid=0x00007f9f700185f0 nid=0x479c in \
            Object.wait()  [0x00007f9f74f1c000]
               java.lang.Thread.State: TIMED_WAITING (sleeping)
            "C2 CompilerThread0" #7 daemon prio=9 os_prio=0 cpu=6480.37ms elapsed=192.17s tid=0x00007f9f701043b0 \
            nid=0x47a8 waiting on condition  [0x0000000000000000]
            "fleet-simulator" #45 daemon prio=5 os_prio=0 cpu=1000.00ms elapsed=100.00s tid=0x1 nid=0x2 waiting on \
            condition  [0x0]
            "kafka-producer-network-thread | demo-fleet" #46 daemon prio=5 os_prio=0 cpu=200.00ms elapsed=100.00s \
            tid=0x1 nid=0x3 runnable  [0x0]
            "gpu-ledger-cost-engine-61e79aaa-53cd-4951-9e98-64268d32434d-StreamThread-1" #50 prio=5 os_prio=0 \
            cpu=3000.50ms elapsed=90.00s tid=0x1 nid=0x4 runnable  [0x0]
            "data-plane-kafka-request-handler-0" #30 daemon prio=5 os_prio=0 cpu=700.00ms elapsed=100.00s tid=0x1 \
            nid=0x5 runnable  [0x0]
            "GC Thread#1" os_prio=0 cpu=140.37ms elapsed=192.08s tid=0x00007f9ee80049c0 nid=0x47af runnable
            "VM Thread" os_prio=0 cpu=29.51ms elapsed=192.71s tid=0x00007f9f700f3160 nid=0x47a2 runnable
            """;

    @Test
    void shouldReadEachThreadsCpuFromItsDumpHeader() {
        Map<String, Double> millis = ThreadCpu.parse(BEFORE);

        assertThat(millis).containsEntry("main", 4988.98)
                .containsEntry("gpu-ledger-cost-engine-61e79aaa-53cd-4951-9e98-64268d32434d-StreamThread-1", 3000.50)
                .containsEntry("GC Thread#1", 140.37)
                .containsEntry("VM Thread", 29.51)
                .hasSize(8);
    }

    @Test
    void shouldAddUpTheCpuEachPartOfTheDemoUsedBetweenTwoDumps() {
        String after = BEFORE.replace("cpu=1000.00ms", "cpu=1500.00ms")        // simulator +0.5 s
                .replace("cpu=200.00ms", "cpu=300.00ms")                        // its producer +0.1 s
                .replace("cpu=3000.50ms", "cpu=5000.50ms")                      // stream thread +2 s
                .replace("cpu=700.00ms", "cpu=1000.00ms")                       // broker +0.3 s
                .replace("cpu=140.37ms", "cpu=240.37ms")                        // GC +0.1 s
                .replace("cpu=6480.37ms", "cpu=6480.37ms")
                + "\"kafka-producer-network-thread | gpu-ledger-cost-engine-61e79aaa-StreamThread-1-producer\""
                + " #60 daemon prio=5 os_prio=0 cpu=250.00ms elapsed=10.00s tid=0x1 nid=0x9 runnable  [0x0]\n";

        Map<String, Double> seconds = ThreadCpu.between(ThreadCpu.parse(BEFORE), ThreadCpu.parse(after),
                ThreadCpu::demoPart);

        // The engine: its stream thread's 2 s and the producer thread started meanwhile, 0.25 s.
        assertThat(seconds.get("cost engine")).isCloseTo(2.25, within(1e-9));
        assertThat(seconds.get("simulated fleet")).isCloseTo(0.6, within(1e-9));
        assertThat(seconds.get("embedded broker")).isCloseTo(0.3, within(1e-9));
        assertThat(seconds.get("garbage collector")).isCloseTo(0.1, within(1e-9));
        assertThat(seconds.get("JIT compiler")).isCloseTo(0.0, within(1e-9));
        assertThat(seconds.get("demo's summary line")).isCloseTo(0.0, within(1e-9));
    }

    @Test
    void shouldTellTheAlertServicesReadersFromItsHttpThreads() {
        assertThat(ThreadCpu.alertsPart("alerts-fleet")).isEqualTo("reading the engine's topics");
        assertThat(ThreadCpu.alertsPart("executor-thread-3")).isEqualTo("HTTP (API and metrics) and the series sweep");
        assertThat(ThreadCpu.alertsPart("C1 CompilerThread0")).isEqualTo("JIT compiler");
        assertThat(ThreadCpu.alertsPart("kafka-coordinator-heartbeat-thread | gpu-ledger-alerts"))
                .isEqualTo("the rest");
    }
}
