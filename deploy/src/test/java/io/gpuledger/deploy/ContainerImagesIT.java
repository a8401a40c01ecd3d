package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.testing.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image tarballs the build makes (deploy/images/README.md): what their configs say, and,
 * where this runs as root, that each image's own file system runs its program as its own user
 * (unpacked, then entered with {@code chroot} in fresh mount and PID namespaces, as a container
 * runtime would; no Docker). Skipped with {@code -DskipImages}, which leaves gpuledger.images.dir unset.
 */
class ContainerImagesIT {

    static final String JAVA = "/opt/java/openjdk/bin/java";
    static final String USER = "10001:10001";

    private static final Map<String, ImageTarball> IMAGES = new LinkedHashMap<>();

    @BeforeAll
    static void readImages() throws IOException {
        String dir = System.getProperty("gpuledger.images.dir");
        assumeTrue(dir != null, "images are not built with -DskipImages");
        for (String name : List.of("gpu-ledger-agent", "gpu-ledger-engine", "gpu-ledger-alerts")) {
            Path tarball = Path.of(dir, name + ".tar");
            assertThat(tarball).as("built by the images profile").isRegularFile();
            IMAGES.put(name, ImageTarball.read(tarball));
        }
    }

    @Test
    void shouldNameEachImageAfterItsProgramAndVersion() {
        IMAGES.forEach((name, image) -> {
            assertThat(image.repoTags()).singleElement().asString().startsWith(name + ":");
            assertThat(image.runConfig().at("/Labels/org.opencontainers.image.title").asText()).isEqualTo(name);
            assertThat(image.imageConfig().get("os").asText()).isEqualTo("linux");
        });
    }

    @Test
    void shouldRunAsANonRootUserThatTheImageKnows() {
        IMAGES.forEach((name, image) -> {
            assertThat(image.runConfig().get("User").asText()).as(name).isEqualTo(USER);
            assertThat(image.files()).as(name).containsKeys("etc/passwd", "etc/group",
                    "app/classes/io/gpuledger/deploy/HttpProbe.class");
        });
    }

    @Test
    void shouldStartTheImagesOwnJavaRuntimeOnTheProgram() {
        Map<String, List<String>> programs = Map.of(
                "gpu-ledger-agent", List.of("-jar", "/opt/gpu-ledger/gpu-ledger-agent.jar"),
                "gpu-ledger-engine", List.of("-cp", "/opt/gpu-ledger/lib/*", "io.gpuledger.cli.Main", "engine"),
                "gpu-ledger-alerts", List.of("-jar", "/opt/gpu-ledger/alerts/quarkus-run.jar"));
        IMAGES.forEach((name, image) -> {
            List<String> command = command(image);
            assertThat(command.get(0)).as(name).isEqualTo(JAVA);
            assertThat(String.join(" ", command)).as(name).endsWith(String.join(" ", programs.get(name)));
            assertThat(image.files().get(JAVA.substring(1))).as(name).matches(ImageTarball.Entry::isExecutable);
            assertThat(image.files().get("lib64/ld-linux-x86-64.so.2")).as(name)
                    .matches(ImageTarball.Entry::isExecutable);
            for (String arg : command) {
                if (arg.startsWith("/opt/gpu-ledger/") && arg.endsWith(".jar")) {
                    assertThat(image.files()).as(name).containsKey(arg.substring(1));
                }
            }
        });
        assertThat(IMAGES.get("gpu-ledger-engine").files().keySet())
                .anyMatch(path -> path.matches("opt/gpu-ledger/lib/gpu-ledger-streams-.*\\.jar"))
                .contains("opt/gpu-ledger/lib/gpu-ledger-cli.jar");
    }

    /**
     * The agent's image runs it with {@code deploy/agent/jvm.options}, as the {@code gpu-ledger}
     * script does, and the engine's with the options the script gives {@code engine} (the
     * benchmarks' too), its heap set by the container's limit rather than by {@code -Xmx}.
     */
    @Test
    void shouldRunTheAgentAndTheEngineWithTheJvmOptionsOfTheScript() throws IOException {
        List<String> agent = Files.readAllLines(RepositoryFiles.resolve("deploy/agent/jvm.options")).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
        assertThat(jvmOptions("gpu-ledger-agent")).containsExactlyElementsOf(agent);

        String prefix = "engine) jvm_options=(";
        String engineCase = Files.readAllLines(RepositoryFiles.resolve("gpu-ledger")).stream().map(String::strip)
                .filter(line -> line.startsWith(prefix)).findFirst().orElseThrow();
        List<String> engine = new ArrayList<>(List.of("-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError"));
        Arrays.stream(engineCase.substring(prefix.length(), engineCase.indexOf(')', prefix.length())).split(" "))
                .filter(option -> !option.startsWith("-Xmx")).forEach(engine::add);
        assertThat(jvmOptions("gpu-ledger-engine")).containsExactlyElementsOf(engine);
    }

    /** A program that lost a thread to an OutOfMemoryError would run on without it: each ends, for its restart. */
    @Test
    void shouldEndEveryProgramOnItsFirstOutOfMemoryError() {
        IMAGES.keySet().forEach(name -> assertThat(jvmOptions(name)).as(name).contains("-XX:+ExitOnOutOfMemoryError"));
    }

    @Test
    void shouldExposeThePortsTheProgramsListenOn() {
        assertThat(ports("gpu-ledger-agent")).containsExactly("9477/tcp");
        assertThat(ports("gpu-ledger-alerts")).containsExactlyInAnyOrder("8080/tcp", "9000/tcp");
        assertThat(ports("gpu-ledger-engine")).isEmpty();
        assertThat(env("gpu-ledger-alerts")).containsEntry("QUARKUS_HTTP_HOST", "0.0.0.0");
        assertThat(env("gpu-ledger-agent")).containsEntry("GPULEDGER_PROGRESS_HOST", "0.0.0.0")
                .containsEntry("GPULEDGER_SPOOL_DIR", "/var/lib/gpu-ledger/agent-spool");
        assertThat(env("gpu-ledger-engine")).containsEntry("GPULEDGER_STATE_DIR", "/var/lib/gpu-ledger/engine");
        IMAGES.keySet().forEach(name -> assertThat(env(name).get("PATH")).as(name).startsWith("/opt/java/openjdk/bin:")
                .contains(":/usr/bin"));
    }

    @Test
    void shouldLeaveTheStateAndScratchDirectoriesWritableForTheProgramsUser() {
        IMAGES.forEach((name, image) -> {
            assertThat(image.files().get("tmp").mode() & 0777).as(name).isEqualTo(0777);
            assertThat(image.files().get("var/lib/gpu-ledger").mode() & 0777).as(name).isEqualTo(0777);
            assertThat(image.runConfig().get("WorkingDir").asText()).isEqualTo("/var/lib/gpu-ledger");
        });
    }

    @Test
    void shouldShareOneRuntimeLayerBetweenTheThreeImages() {
        Set<String> common = new HashSet<>(IMAGES.get("gpu-ledger-agent").layers());
        IMAGES.values().forEach(image -> common.retainAll(image.layers()));
        // the runtime tree, and Jib's small layer of (empty) JVM argument files
        assertThat(common).hasSizeGreaterThanOrEqualTo(1);
    }

    @Test
    void agentImageShouldRunTheAgent(@TempDir Path root) throws Exception {
        Run run = runImage("gpu-ledger-agent", root, List.of("--help"), Map.of(), Duration.ofSeconds(60));
        assertThat(run.exitCode).as(run.output).isZero();
        assertThat(run.output).contains("usage: gpu-ledger agent").contains("GPULEDGER_SPOOL_DIR");
    }

    @Test
    void engineImageShouldRunTheCostEngineAndTheCommandLine(@TempDir Path root) throws Exception {
        Run engine = runImage("gpu-ledger-engine", root, List.of("engine", "--help"), Map.of(), Duration.ofSeconds(60));
        assertThat(engine.exitCode).as(engine.output).isZero();
        assertThat(engine.output).contains("--state-dir").contains("GPULEDGER_STATE_DIR");
        Run cli = runImage("gpu-ledger-engine", root, List.of("prices", "--dry-run"), Map.of(), Duration.ofSeconds(60));
        assertThat(cli.exitCode).as(cli.output).isZero();
        assertThat(cli.output).contains("\"provider\":\"aws\"");
    }

    @Test
    void alertsImageShouldBootQuarkusUpToItsFirstKafkaCall(@TempDir Path root) throws Exception {
        // No broker here: the service is up to reading its topics once its admin client asks for one.
        String calling = "Connection to node -1 (/127.0.0.1:9) could not be established";
        Run run = runImage("gpu-ledger-alerts", root, List.of(), Map.of("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9",
                "QUARKUS_HTTP_PORT", "0"), Duration.ofSeconds(60), calling);
        assertThat(run.output).doesNotContain("Exception in thread \"main\"").doesNotContain("UnsatisfiedLinkError")
                .contains(calling);
    }

    private static List<String> command(ImageTarball image) {
        List<String> command = new ArrayList<>();
        image.runConfig().path("Entrypoint").forEach(arg -> command.add(arg.asText()));
        image.runConfig().path("Cmd").forEach(arg -> command.add(arg.asText()));
        return command;
    }

    /** The options the image's entrypoint gives its JVM: those between the runtime and the program. */
    private static List<String> jvmOptions(String name) {
        List<String> command = command(IMAGES.get(name));
        int program = 1;
        while (program < command.size() && !List.of("-jar", "-cp").contains(command.get(program))) {
            program++;
        }
        return command.subList(1, program);
    }

    private static List<String> ports(String name) {
        List<String> ports = new ArrayList<>();
        IMAGES.get(name).runConfig().path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        return ports;
    }

    private static Map<String, String> env(String name) {
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode entry : IMAGES.get(name).runConfig().path("Env")) {
            String[] pair = entry.asText().split("=", 2);
            env.put(pair[0], pair[1]);
        }
        return env;
    }

    record Run(int exitCode, String output) {
    }

    private static Run runImage(String name, Path root, List<String> args, Map<String, String> extraEnv,
            Duration limit) throws Exception {
        return runImage(name, root, args, extraEnv, limit, null);
    }

    private static Run runImage(String name, Path root, List<String> args, Map<String, String> extraEnv,
            Duration limit, String until) throws Exception {
        List<String> command = new ArrayList<>();
        ImageTarball image = IMAGES.get(name);
        image.runConfig().path("Entrypoint").forEach(arg -> command.add(arg.asText()));
        if (args.isEmpty()) {
            image.runConfig().path("Cmd").forEach(arg -> command.add(arg.asText()));
        }
        command.addAll(args);
        return runCommand(name, root, extraEnv, limit, until, command);
    }

    /**
     * Runs {@code command} inside the unpacked image as its user, with the image's environment and
     * nothing of this machine's but /proc (its own) and an /etc/hosts, as a container runtime
     * provides them. A run still going after {@code limit}, or once its output shows {@code until}
     * (when not null), is stopped (exit code -1).
     */
    private static Run runCommand(String name, Path root, Map<String, String> extraEnv, Duration limit,
            String until, List<String> command) throws Exception {
        Path unshare = Path.of("/usr/bin/unshare");
        Path chroot = Path.of("/usr/sbin/chroot");
        RequiredTool.assume(Files.isExecutable(unshare) && Files.isExecutable(chroot), "needs unshare and chroot");
        RequiredTool.assume("root".equals(System.getProperty("user.name")), "entering an image's root needs root");
        Path image = root.resolve("rootfs");
        if (!Files.isDirectory(image)) {
            IMAGES.get(name).extractTo(image);
            Files.createDirectories(image.resolve("proc"));
            Files.writeString(image.resolve("etc/hosts"), "127.0.0.1 localhost\n");
        }
        List<String> full = new ArrayList<>(List.of(unshare.toString(), "--mount", "--pid", "--fork",
                "--mount-proc=" + image.resolve("proc"), chroot.toString(),
                "--userspec=" + IMAGES.get(name).runConfig().get("User").asText(), image.toString()));
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(root.resolve("output.log").toFile());
        builder.environment().clear();
        builder.environment().putAll(env(name));
        builder.environment().putAll(extraEnv);
        Process process = builder.start();
        long deadline = System.nanoTime() + limit.toNanos();
        boolean exited = false;
        while (!exited && System.nanoTime() < deadline && (until == null || !output(root).contains(until))) {
            exited = process.waitFor(200, TimeUnit.MILLISECONDS);
        }
        int exit;
        if (exited) {
            exit = process.exitValue();
        } else {
            // The program is PID 1 of its namespace and outlives unshare (chroot's change of user clears
            // any parent-death signal), and the alert service, still starting, does not end on
            // SIGTERM: kill it by its handle.
            List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
            tree.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
            for (ProcessHandle handle : tree) {
                handle.onExit().get(15, TimeUnit.SECONDS);
            }
            exit = -1;
        }
        return new Run(exit, output(root));
    }

    private static String output(Path root) throws IOException {
        return new String(Files.readAllBytes(root.resolve("output.log")), StandardCharsets.UTF_8);
    }
}
