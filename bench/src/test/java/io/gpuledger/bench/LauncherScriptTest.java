package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.cli.Demo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code gpu-ledger} script's JVM settings, which the benchmarks copy when they start a command
 * without it: what {@code bench footprint} measures must be the demo as users start it.
 */
class LauncherScriptTest {

    private static final Path SCRIPT = Path.of("..", "gpu-ledger");

    @Test
    void theDemoRunsWithTheHeapTheFootprintBenchmarkMeasures() throws Exception {
        List<String> lines = Files.readAllLines(SCRIPT);

        assertThat(lines).as("the demo's case in %s", SCRIPT)
                .anySatisfy(line -> assertThat(line.strip()).isEqualTo("demo) jvm_options=(" + Demo.HEAP + ") ;;"));
    }

    @Test
    void theEngineRunsAsTheBenchmarksRunIt() throws Exception {
        List<String> lines = Files.readAllLines(SCRIPT);

        assertThat(lines).as("the engine's case in %s", SCRIPT).anySatisfy(line -> assertThat(line.strip())
                .isEqualTo("engine) jvm_options=(" + String.join(" ", BenchProcesses.engineJvm()) + ") ;;"));
    }

    @Test
    void benchRunsFromThisModulesJarWithItsLibraries() throws Exception {
        String script = Files.readString(SCRIPT);

        assertThat(script).contains("bench_jar=\"$home/bench/target/gpu-ledger-bench.jar\"")
                .contains("main=" + BenchCommand.class.getName())
                .contains("classpath=\"$bench_jar:$home/bench/target/lib/*\"");
    }

    @Test
    void everyCommandRunsWithFewMallocArenas() throws Exception {
        List<String> lines = Files.readAllLines(SCRIPT);

        assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("export MALLOC_ARENA_MAX="));
        int export = indexOf(lines, "export MALLOC_ARENA_MAX=");
        int exec = indexOf(lines, "exec java");
        assertThat(export).as("set before the JVM starts").isLessThan(exec);
    }

    @Test
    void everyCommandEndsOnItsFirstOutOfMemoryError() throws Exception {
        List<String> lines = Files.readAllLines(SCRIPT);

        // added to every command's options unless they have it (the agent's file does), before the JVM starts
        String adds = "[[ \" ${jvm_options[*]} \" == *\" -XX:+ExitOnOutOfMemoryError \"* ]] || jvm_options=("
                + "-XX:+ExitOnOutOfMemoryError \"${jvm_options[@]}\")";
        int added = indexOf(lines, adds);
        assertThat(added).isLessThan(indexOf(lines, "exec java"));
        assertThat(added).as("after the commands' own options").isGreaterThan(indexOf(lines, "esac"));
    }

    @Test
    void extraJvmOptionsFromTheEnvironmentComeAfterTheCommandsOwn() throws Exception {
        List<String> lines = Files.readAllLines(SCRIPT);

        int own = indexOf(lines, "  demo) jvm_options=(");
        int read = indexOf(lines, "read -r -a extra_jvm_options <<< \"${GPULEDGER_CLI_JVM_OPTS:-}\"");
        int added = indexOf(lines, "jvm_options+=(\"${extra_jvm_options[@]}\")");
        int exec = indexOf(lines, "exec java \"${jvm_options[@]}\"");

        assertThat(own).isLessThan(read);
        assertThat(read).isLessThan(added);
        assertThat(added).as("a later -Xmx wins, so they must come last").isLessThan(exec);
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return Integer.MAX_VALUE;
    }
}
