package io.gpuledger.ingest.agent.owners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.agent.progress.ProgressReports;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.testing.ProcTree;
import io.gpuledger.ingest.testing.StandInServer;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.Placement;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Processes mapped to jobs on a test process table, with a kubelet stand-in on 127.0.0.1. */
class ProcessOwnersTest {

    private static final String WEB_POD = "0f1d2b3c-4a5b-6c7d-8e9f-0a1b2c3d4e5f";
    private static final String NOTEBOOK_POD = "7c6b5a49-3827-4165-9a8b-7c6d5e4f3a2b";
    private static final String PODS = """
            {"kind": "PodList", "apiVersion": "v1", "items": [
              {"metadata": {"name": "web-7d9f", "namespace": "search", "uid": "%s",
                            "labels": {"app.kubernetes.io/name": "ranker", "cost-center": "search-ml"}}},
              {"metadata": {"name": "notebook-0", "namespace": "research", "uid": "%s"}}
            ]}""".formatted(WEB_POD, NOTEBOOK_POD);

    private static final String ALICE_POD = "a11ce000-0000-4000-8000-000000000001";
    private static final String BOB_POD = "b0b00000-0000-4000-8000-000000000002";
    private static final String CAROL_POD = "ca201000-0000-4000-8000-000000000003";
    private static final String IDLE_POD = "1d1e0000-0000-4000-8000-000000000004";
    /** A StatefulSet's first pod in four namespaces: its name alone names one pod in each. */
    private static final String SAME_NAMED = """
            {"kind": "PodList", "apiVersion": "v1", "items": [
              {"metadata": {"name": "notebook-0", "namespace": "alice", "uid": "%s"}},
              {"metadata": {"name": "notebook-0", "namespace": "bob", "uid": "%s"}},
              {"metadata": {"name": "notebook-0", "namespace": "carol", "uid": "%s",
                            "labels": {"app.kubernetes.io/name": "lab"}}},
              {"metadata": {"name": "notebook-0", "namespace": "idle", "uid": "%s"}}
            ]}""".formatted(ALICE_POD, BOB_POD, CAROL_POD, IDLE_POD);

    @TempDir
    Path dir;

    private final StandInServer kubelet = StandInServer.start();
    private final Clock clock = Clock.fixed(Instant.parse("2026-12-05T10:00:00Z"), ZoneOffset.UTC);

    @AfterEach
    void stop() {
        kubelet.close();
    }

    @Test
    void shouldMapAProcessInAPodToThePodsLabelsElseItsNameAndNamespace() {
        kubelet.answer("GET /pods", 200, PODS);
        ProcTree proc = new ProcTree(dir).inPod(101, WEB_POD).inPod(202, NOTEBOOK_POD)
                .cgroup(303, "0::/user.slice/user-1000.slice/session-3.scope\n");
        ProcessOwners owners = new KubernetesOwners(proc.root(), pods(List.of("app.kubernetes.io/name"),
                List.of("cost-center")));

        assertThat(owners.ownerOf(101)).contains(new Owner("ranker", "search-ml"));
        assertThat(owners.ownerOf(202)).contains(new Owner("notebook-0", "research"));
        assertThat(owners.ownerOf(303)).isEmpty();
        assertThat(owners.ownerOf(404)).as("a process that ended").isEmpty();
        assertThat(kubelet.requests()).containsExactly("GET /pods");
    }

    @Test
    void shouldMapAProcessInAStaticPodByItsUidOfThirtyTwoHexDigits() {
        String staticUid = "3b5b1b5a8c9d4b2e8f7a6c5d4e3f2a1b";
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "apiVersion": "v1", "items": [
                  {"metadata": {"name": "etcd-node-1", "namespace": "kube-system", "uid": "%s"}},
                  {"metadata": {"name": "web-7d9f", "namespace": "search", "uid": "%s"}}
                ]}""".formatted(staticUid, WEB_POD));
        ProcTree proc = new ProcTree(dir).inPod(101, staticUid).inPod(202, WEB_POD)
                .cgroup(303, "12:memory:/kubepods/burstable/pod" + staticUid + "/" + ProcTree.CONTAINER_ID + "\n");
        ProcessOwners owners = new KubernetesOwners(proc.root(), pods(List.of(), List.of()));

        assertThat(owners.ownerOf(101)).contains(new Owner("etcd-node-1", "kube-system"));
        assertThat(owners.ownerOf(202)).as("a dashed UID, written with underscores by the systemd driver")
                .contains(new Owner("web-7d9f", "search"));
        assertThat(owners.ownerOf(303)).as("the cgroupfs driver").contains(new Owner("etcd-node-1", "kube-system"));
    }

    @Test
    void shouldLeaveAProcessOfAPodTheKubeletDoesNotListUnattributedAndAskAgainOnlyLater() {
        kubelet.answer("GET /pods", 200, PODS);
        ProcTree proc = new ProcTree(dir).inPod(101, "11111111-2222-3333-4444-555555555555");
        ProcessOwners owners = new KubernetesOwners(proc.root(), pods(List.of(), List.of()));

        assertThat(owners.ownerOf(101)).isEmpty();
        assertThat(owners.ownerOf(101)).isEmpty();
        assertThat(kubelet.requests()).hasSize(1);
    }

    @Test
    void shouldFindANewPodInALaterRoundWithoutWaitingForTheKubeletAfterTheFirstTime() {
        kubelet.answer("GET /pods", 200, PODS);
        MovableClock moving = new MovableClock(Instant.parse("2026-12-05T10:00:00Z"));
        List<Runnable> queued = new ArrayList<>();
        KubeletPods pods = new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(), List.of(),
                List.of(), new PodJobs(PodJobIds.POD), moving, queued::add);
        ProcTree proc = new ProcTree(dir).inPod(101, WEB_POD);
        ProcessOwners owners = new KubernetesOwners(proc.root(), pods);

        // The first round waits for the list: it has nothing else to go by
        assertThat(owners.ownerOf(101)).contains(new Owner("web-7d9f", "search"));
        assertThat(queued).isEmpty();

        // Ten seconds on, a pod the list did not hold starts: the round hands the list to the refresher and goes
        // on without its owner, and a round while the list is asked for asks for nothing more
        String newPod = "11111111-2222-3333-4444-555555555555";
        kubelet.answer("GET /pods", 200, PODS.replace(NOTEBOOK_POD, newPod));
        proc.inPod(202, newPod);
        moving.set(moving.instant().plus(KubeletPods.REFRESH_AT_MOST_EVERY));
        assertThat(owners.ownerOf(202)).isEmpty();
        moving.set(moving.instant().plus(KubeletPods.REFRESH_AT_MOST_EVERY));
        assertThat(owners.ownerOf(202)).isEmpty();
        assertThat(queued).hasSize(1);
        assertThat(kubelet.requests()).hasSize(1);

        // Once the refresher has run, the next round finds it, and the pods it knew stay known meanwhile
        assertThat(owners.ownerOf(101)).contains(new Owner("web-7d9f", "search"));
        queued.remove(0).run();
        assertThat(owners.ownerOf(202)).contains(new Owner("notebook-0", "research"));
        assertThat(kubelet.requests()).hasSize(2);
    }

    @Test
    void shouldSayOnceThatTheKubeletDidNotAnswerAndMapNoOne() {
        kubelet.answer("GET /pods", 401, "Unauthorized");
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(),
                pods(List.of(), List.of()));

        assertThat(owners.ownerOf(101)).isEmpty();
        assertThat(owners.drainErrors()).singleElement().asString().contains("HTTP 401").contains("unattributed");
        assertThat(owners.drainErrors()).isEmpty();
    }

    @Test
    void shouldSayAKubeletThatStaysAwayOnceAndAgainOnlyAfterItWasBack() {
        kubelet.answer("GET /pods", 503, "starting");
        Instant[] now = {Instant.parse("2026-12-05T10:00:00Z")};
        Clock moving = new Clock() {
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            public Instant instant() {
                return now[0];
            }
        };
        KubeletPods pods = new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(), List.of(),
                List.of(), new PodJobs(PodJobIds.POD), moving, Runnable::run);
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(), pods);

        for (int round = 0; round < 3; round++) {
            assertThat(owners.ownerOf(101)).isEmpty();
            now[0] = now[0].plus(KubeletPods.REFRESH_AT_MOST_EVERY);
        }
        assertThat(kubelet.requests()).hasSize(3);
        assertThat(owners.drainErrors()).singleElement().asString().contains("HTTP 503");
        kubelet.answer("GET /pods", 200, PODS);
        assertThat(owners.ownerOf(101)).contains(new Owner("web-7d9f", "search"));
        now[0] = now[0].plus(KubeletPods.REFRESH_AT_MOST_EVERY);
        kubelet.answer("GET /pods", 503, "restarting");
        new ProcTree(dir).inPod(202, "11111111-2222-3333-4444-555555555555");
        assertThat(owners.ownerOf(202)).isEmpty();
        assertThat(owners.drainErrors()).singleElement().asString().contains("HTTP 503");
    }

    @Test
    void shouldReadAPodsLabelsAgainOnceTheListIsAMinuteOld() {
        kubelet.answer("GET /pods", 200, PODS);
        MovableClock moving = new MovableClock(Instant.parse("2026-12-05T10:00:00Z"));
        KubeletPods pods = new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(),
                List.of("app.kubernetes.io/name"), List.of("cost-center"), new PodJobs(PodJobIds.POD), moving,
                Runnable::run);
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(), pods);
        assertThat(owners.ownerOf(101)).contains(new Owner("ranker", "search-ml"));

        // the running pod is given to another team
        kubelet.answer("GET /pods", 200, PODS.replace("\"cost-center\": \"search-ml\"", "\"cost-center\": \"ads\""));
        moving.set(moving.instant().plus(KubeletPods.LABELS_MAX_AGE).minusSeconds(1));
        assertThat(owners.ownerOf(101)).as("within a minute: as listed").contains(new Owner("ranker", "search-ml"));
        assertThat(kubelet.requests()).hasSize(1);
        moving.set(moving.instant().plusSeconds(1));
        assertThat(owners.ownerOf(101)).contains(new Owner("ranker", "ads"));
        assertThat(kubelet.requests()).hasSize(2);
    }

    @Test
    void shouldRefuseAKubeletCaFileThatHoldsNoCertificate() throws java.io.IOException {
        Path ca = java.nio.file.Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nnope\n");

        assertThatThrownBy(() -> new KubeletPods(URI.create("https://127.0.0.1:10250"), Optional.empty(),
                Optional.of(ca), List.of(), List.of(), new PodJobs(PodJobIds.POD), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kubelet.ca-file").hasMessageContaining(ca.toString());
    }

    @Test
    void shouldSayAKubeletAddressItCannotAskAndGoOn() {
        // Given the manifest's https://$(NODE_IP):10250 on an IPv6 node: the address without its brackets, which
        // names no host the client can ask
        KubeletPods pods = new KubeletPods(URI.create("https://fd00::1:10250"), Optional.empty(), Optional.empty(),
                List.of(), List.of(), new PodJobs(PodJobIds.POD), clock, Runnable::run);
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(), pods);

        // Then the process is not mapped, and why is said, rather than the round failing
        assertThat(owners.ownerOf(101)).isEmpty();
        assertThat(owners.drainErrors()).singleElement().asString().contains("fd00::1").contains("cannot be asked");
    }

    @Test
    void shouldKeepThePodsListedLastWhenAnAnswerIsNoPodList() {
        // Given the pods listed, then, a minute later, an answer of an empty object (a proxy in the way)
        kubelet.answer("GET /pods", 200, PODS);
        MovableClock moving = new MovableClock(Instant.parse("2026-12-05T10:00:00Z"));
        KubeletPods pods = new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(), List.of(),
                List.of(), new PodJobs(PodJobIds.POD), moving, Runnable::run);
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(), pods);
        assertThat(owners.ownerOf(101)).isPresent();
        kubelet.answer("GET /pods", 200, "{}");
        moving.set(moving.instant().plus(KubeletPods.LABELS_MAX_AGE).plusSeconds(1));

        // Then the process keeps its pod's owner, and the answer is said
        assertThat(owners.ownerOf(101)).isPresent();
        assertThat(owners.drainErrors()).singleElement().asString().contains("not a list of pods");
    }

    @Test
    void shouldSayAKubeletAnswerThatIsNoPodListAndMapNoOne() {
        kubelet.answer("GET /pods", 200, "<html>login</html>");
        ProcessOwners owners = new KubernetesOwners(new ProcTree(dir).inPod(101, WEB_POD).root(),
                pods(List.of(), List.of()));

        assertThat(owners.ownerOf(101)).isEmpty();
        assertThat(owners.drainErrors()).singleElement().asString().contains("not a list of pods");
    }

    @Test
    void shouldMapASlurmProcessByItsEnvironmentElseItsCgroup() {
        ProcTree proc = new ProcTree(dir)
                .environ(11, Map.of("PATH", "/usr/bin", "SLURM_JOB_ID", "4242", "SLURM_JOB_ACCOUNT", "physics"))
                .cgroup(22, "0::/system.slice/slurmstepd.scope/job_977/step_0/user/task_0\n")
                .environ(33, Map.of("HOME", "/home/a"));
        ProcessOwners owners = new SlurmOwners(proc.root());

        assertThat(owners.ownerOf(11)).contains(new Owner("4242", "physics"));
        assertThat(owners.ownerOf(22)).contains(new Owner("977", null));
        assertThat(owners.ownerOf(33)).isEmpty();
    }

    @Test
    void shouldTakeASlurmJobFromItsCgroupWithItsAccountOnlyWhereTheEnvironmentNamesTheSameJob() {
        String step = "0::/system.slice/slurmstepd.scope/job_%s/step_0/user/task_0\n";
        // 44: an array task, SLURM_JOB_ID its own id; 55: the second component of a heterogeneous job, whose
        // environment names the leader 11751 (Slurm's heterogeneous_jobs.html) while its cgroup is its own, 11752
        ProcTree proc = new ProcTree(dir)
                .cgroup(44, step.formatted("4321")).environ(44, Map.of("SLURM_JOB_ID", "4321",
                        "SLURM_JOB_ACCOUNT", "physics"))
                .cgroup(55, step.formatted("11752")).environ(55, Map.of("SLURM_JOB_ID", "11751",
                        "SLURM_JOB_ACCOUNT", "chemistry"));
        ProcessOwners owners = new SlurmOwners(proc.root());

        assertThat(owners.ownerOf(44)).contains(new Owner("4321", "physics"));
        assertThat(owners.ownerOf(55)).contains(new Owner("11752", null));
    }

    @Test
    void shouldTakeAPodsProcessAsThePodsWhateverSlurmJobItsEnvironmentClaims() throws Exception {
        kubelet.answer("GET /pods", 200, PODS);
        // any pod's spec can set these (a wrapper that starts pods from a Slurm job does)
        ProcTree proc = new ProcTree(dir).inPod(101, WEB_POD)
                .environ(101, Map.of("SLURM_JOB_ID", "999", "SLURM_JOB_ACCOUNT", "other-team"));
        // as the agent orders them: Slurm first, for a job step in a slurmd pod
        ProcessOwners owners = ProcessOwners.firstOf(List.of(new SlurmOwners(proc.root()),
                new KubernetesOwners(proc.root(), pods(List.of(), List.of()))));

        assertThat(new SlurmOwners(proc.root()).ownerOf(101)).isEmpty();
        assertThat(owners.ownerOf(101)).contains(new Owner("web-7d9f", "search"));
    }

    @Test
    void shouldReadSlurmsVariablesFromAnEnvironmentWithBytesOfNoEncoding() throws Exception {
        // a Latin-1 directory name (0xe9) before Slurm's own variables, each variable ended by a NUL
        Path environ = Files.createDirectories(dir.resolve("66")).resolve("environ");
        Files.write(environ, concat("PWD=/home/caf".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xe9, 0},
                "SLURM_JOB_ID=4242\0SLURM_JOB_ACCOUNT=physics\0".getBytes(StandardCharsets.US_ASCII)));

        assertThat(new SlurmOwners(dir).ownerOf(66)).contains(new Owner("4242", "physics"));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void shouldMapAProcessAJobsReportNamedUntilTheClaimLapses() {
        ProgressReports reports = new ProgressReports(new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND), clock, dir);
        reports.accept(("{\"jobId\": \"llm-serve\", \"team\": \"chat\", \"unit\": \"tokens\", \"workUnits\": 10,"
                + " \"intervalSeconds\": 10, \"pid\": 5150}").getBytes(StandardCharsets.UTF_8));

        assertThat(new ReportedOwners(reports, clock).ownerOf(5150)).contains(new Owner("llm-serve", "chat"));
        assertThat(new ReportedOwners(reports, clock).ownerOf(5151)).isEmpty();
        Clock later = Clock.offset(clock, ProgressReports.CLAIM_TTL.plusSeconds(1));
        assertThat(new ReportedOwners(reports, later).ownerOf(5150)).isEmpty();
    }

    @Test
    void shouldMapAReportedProcessOnlyWhileItsPidIsTheProcessThatWasClaimed() {
        // 5150 started 1000 ticks after boot; 6160 the agent cannot see; 7170 is no process yet
        ProcTree proc = new ProcTree(dir).started(5150, 1000);
        MovableClock now = new MovableClock(clock.instant());
        ProgressReports reports = new ProgressReports(new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND), now, proc.root());
        ProcessOwners owners = new ReportedOwners(reports, now);
        for (int pid : List.of(5150, 6160, 7170)) {
            reports.accept(("{\"jobId\": \"llm-serve\", \"team\": \"chat\", \"unit\": \"tokens\", \"workUnits\": 10,"
                    + " \"intervalSeconds\": 10, \"pid\": " + pid + "}").getBytes(StandardCharsets.UTF_8));
        }
        Owner llmServe = new Owner("llm-serve", "chat");

        assertThat(owners.ownerOf(5150)).contains(llmServe);
        assertThat(owners.ownerOf(6160)).as("unseen then and now: the claim stands").contains(llmServe);

        // a minute later, well within the claim's 5 minutes: 5150 ended and its pid went to a process started later
        now.set(clock.instant().plusSeconds(60));
        proc.ended(5150).started(5150, 1000 + 60 * 100).started(7170, 1000 + 50 * 100);

        assertThat(owners.ownerOf(5150)).as("another process with the claimed pid").isEmpty();
        assertThat(owners.ownerOf(7170)).as("a process started after its pid was claimed").isEmpty();
        proc.ended(5150);
        assertThat(owners.ownerOf(5150)).as("the claimed process ended").isEmpty();
    }

    @Test
    void shouldRefuseAReportWhosePidIsNoProcessIdAndRememberNothing() {
        ProgressReports reports = new ProgressReports(new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND), clock, dir);
        String report = "{\"jobId\": \"a\", \"unit\": \"tokens\", \"workUnits\": 1, \"intervalSeconds\": 1,"
                + " \"pid\": %s}";

        assertThatThrownBy(() -> reports.accept(report.formatted("0").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("pid");
        assertThatThrownBy(() -> reports.accept(report.formatted("\"5150\"").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("pid");
        assertThat(reports.claimsTracked()).isZero();
    }

    @Test
    void shouldAskEachInTurnAndTakeTheFirstThatTells() {
        kubelet.answer("GET /pods", 200, PODS);
        ProcTree proc = new ProcTree(dir).inPod(101, WEB_POD).environ(101, Map.of("SLURM_JOB_ID", "1"))
                .environ(202, Map.of("SLURM_JOB_ID", "2"));
        ProcessOwners owners = ProcessOwners.firstOf(List.of(
                new KubernetesOwners(proc.root(), pods(List.of(), List.of())), new SlurmOwners(proc.root())));

        assertThat(owners.ownerOf(101)).contains(new Owner("web-7d9f", "search"));
        assertThat(owners.ownerOf(202)).contains(new Owner("2", null));
        assertThat(owners.ownerOf(303)).isEmpty();
    }

    @Test
    void shouldFindAPodByItsNamespaceAndNameAsByItsUid() {
        kubelet.answer("GET /pods", 200, PODS);
        PodJobs podJobs = new PodJobs(PodJobIds.POD);
        KubeletPods pods = pods(List.of("app.kubernetes.io/name"), List.of("cost-center"), podJobs);

        assertThat(pods.ownerOf("search", "web-7d9f")).contains(new Owner("ranker", "search-ml"));
        assertThat(pods.ownerOf("research", "notebook-0")).contains(new Owner("notebook-0", "research"));
        assertThat(pods.ownerOf("search", "notebook-0")).as("its name in another namespace").isEmpty();
        assertThat(pods.ownerOf(null, "web-7d9f")).isEmpty();
        assertThat(kubelet.requests()).as("asked again only later").containsExactly("GET /pods");
    }

    @Test
    void shouldNameAPodsJobByNamespaceAndNameWhenToldSoAndALabelStillWins() {
        PodJobs podJobs = new PodJobs(PodJobIds.NAMESPACE_POD);
        ProcessOwners owners = sameNamedPods(podJobs);

        assertThat(owners.ownerOf(101)).contains(new Owner("alice/notebook-0", "alice"));
        assertThat(owners.ownerOf(202)).contains(new Owner("bob/notebook-0", "bob"));
        assertThat(owners.ownerOf(303)).contains(new Owner("lab", "carol"));
        assertThat(podJobs.drainSameNamed()).as("no two pods are one job").isEmpty();
    }

    @Test
    void shouldSayOnceWhenPodsOfOneNameInTwoNamespacesAreNamedInOneRound() {
        PodJobs podJobs = new PodJobs(PodJobIds.POD);
        ProcessOwners owners = sameNamedPods(podJobs);

        assertThat(owners.ownerOf(101)).contains(new Owner("notebook-0", "alice"));
        assertThat(owners.ownerOf(303)).as("named by its label").contains(new Owner("lab", "carol"));
        assertThat(podJobs.drainSameNamed()).as("one pod of that name named in the round").isEmpty();

        assertThat(owners.ownerOf(101)).contains(new Owner("notebook-0", "alice"));
        assertThat(owners.ownerOf(202)).contains(new Owner("notebook-0", "bob"));
        assertThat(podJobs.drainSameNamed()).containsExactly("pods named notebook-0 in namespaces alice, bob get one"
                + " job id 'notebook-0'; kubernetes.job-ids=namespace/pod tells them apart");
        owners.ownerOf(101);
        owners.ownerOf(202);
        assertThat(podJobs.drainSameNamed()).as("said once").isEmpty();
        assertThat(owners.drainErrors()).as("advice, not a failure of the kubelet").isEmpty();
    }

    /** Processes 101, 202 and 303 in the notebook pods of alice, bob and carol, carol's named by its label. */
    private ProcessOwners sameNamedPods(PodJobs podJobs) {
        kubelet.answer("GET /pods", 200, SAME_NAMED);
        ProcTree proc = new ProcTree(dir).inPod(101, ALICE_POD).inPod(202, BOB_POD).inPod(303, CAROL_POD);
        return new KubernetesOwners(proc.root(), pods(List.of("app.kubernetes.io/name"), List.of(), podJobs));
    }

    @Test
    void shouldNameAPodsJobAfterTheControllerThatMadeItWhenToldToByWorkload() {
        // Given the kubelet's pods, their owner references as the API writes them: two replicas of Deployment
        // serve-search (its ReplicaSet's name is the Deployment's and the template's hash), a StatefulSet's pod, a
        // CronJob's run (a Job), an Argo Rollout's replica, a static pod (its mirror names its node), a bare pod, and
        // one whose owner is no controller
        String[] uids = new String[8];
        for (int i = 0; i < uids.length; i++) {
            uids[i] = "00000000-0000-4000-8000-00000000000" + i;
        }
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "apiVersion": "v1", "items": [
                  %s, %s, %s, %s, %s, %s,
                  {"metadata": {"name": "debug-shell", "namespace": "search", "uid": "%s"}},
                  {"metadata": {"name": "orphan-x", "namespace": "search", "uid": "%s",
                                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "holder",
                                                     "uid": "c0ffee00-0000-4000-8000-000000000000"}]}}
                ]}""".formatted(
                ownedPod("serve-search-7d9f8c6b5-x2k4q", uids[0], "ReplicaSet", "serve-search-7d9f8c6b5",
                        "pod-template-hash", "7d9f8c6b5"),
                ownedPod("serve-search-7d9f8c6b5-p8w2m", uids[1], "ReplicaSet", "serve-search-7d9f8c6b5",
                        "pod-template-hash", "7d9f8c6b5"),
                ownedPod("embedder-0", uids[2], "StatefulSet", "embedder", "apps.kubernetes.io/pod-index", "0"),
                ownedPod("nightly-eval-29420160-kq7zt", uids[3], "Job", "nightly-eval-29420160",
                        "batch.kubernetes.io/job-name", "nightly-eval-29420160"),
                ownedPod("canary-llm-6c8f9d7b4-abcde", uids[4], "ReplicaSet", "canary-llm-6c8f9d7b4",
                        "rollouts-pod-template-hash", "6c8f9d7b4"),
                ownedPod("kube-apiserver-node-1", uids[5], "Node", "node-1", "tier", "control-plane"),
                uids[6], uids[7]));
        ProcTree proc = new ProcTree(dir);
        for (int i = 0; i < uids.length; i++) {
            proc.inPod(100 + i, uids[i]);
        }
        ProcessOwners byWorkload = new KubernetesOwners(proc.root(), pods(List.of(), List.of(),
                new PodJobs(PodJobIds.WORKLOAD)));
        ProcessOwners byNamespacedWorkload = new KubernetesOwners(proc.root(), pods(List.of(), List.of(),
                new PodJobs(PodJobIds.NAMESPACE_WORKLOAD)));

        // Then both replicas are one job, across rollouts; each other controller names its pods' job; a pod no
        // controller made is named after itself
        List<String> jobs = new ArrayList<>();
        List<String> namespaced = new ArrayList<>();
        for (int i = 0; i < uids.length; i++) {
            jobs.add(byWorkload.ownerOf(100 + i).orElseThrow().jobId());
            namespaced.add(byNamespacedWorkload.ownerOf(100 + i).orElseThrow().jobId());
        }
        assertThat(jobs).containsExactly("serve-search", "serve-search", "embedder", "nightly-eval-29420160",
                "canary-llm", "kube-apiserver-node-1", "debug-shell", "orphan-x");
        assertThat(namespaced).containsExactly("search/serve-search", "search/serve-search", "search/embedder",
                "search/nightly-eval-29420160", "search/canary-llm", "search/kube-apiserver-node-1",
                "search/debug-shell", "search/orphan-x");
    }

    @Test
    void shouldGiveAPodsWorkloadToASourceThatNamesThePodAndThePodsOwnNameBeforeTheKubeletListsIt() {
        // Given a replica of serve-search listed by the kubelet, as dcgm-exporter and HAMi name pods: by name
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "apiVersion": "v1", "items": [%s]}""".formatted(ownedPod(
                "serve-search-7d9f8c6b5-x2k4q", WEB_POD, "ReplicaSet", "serve-search-7d9f8c6b5", "pod-template-hash",
                "7d9f8c6b5")));
        PodJobs podJobs = new PodJobs(PodJobIds.WORKLOAD);
        podJobs.workloadsFrom(pods(List.of(), List.of(), podJobs));

        // Then the pod's job is its Deployment's; a pod the kubelet does not list is named after itself
        assertThat(podJobs.named("search", "serve-search-7d9f8c6b5-x2k4q")).isEqualTo("serve-search");
        assertThat(podJobs.named("search", "serve-search-7d9f8c6b5-zzzzz")).isEqualTo("serve-search-7d9f8c6b5-zzzzz");
        assertThat(podJobs.named("lab", "serve-search-7d9f8c6b5-x2k4q")).as("another namespace's pod")
                .isEqualTo("serve-search-7d9f8c6b5-x2k4q");
    }

    /** A pod whose controlling owner reference names {@code kind} {@code owner}, with one label. */
    private static String ownedPod(String name, String uid, String kind, String owner, String label, String value) {
        return """
                {"metadata": {"name": "%s", "namespace": "search", "uid": "%s", "labels": {"%s": "%s"},
                              "ownerReferences": [{"apiVersion": "apps/v1", "kind": "%s", "name": "%s",
                                                   "uid": "d00d0000-0000-4000-8000-000000000000",
                                                   "controller": true, "blockOwnerDeletion": true}]}}"""
                .formatted(name, uid, label, value, kind, owner);
    }

    private KubeletPods pods(List<String> jobLabels, List<String> teamLabels) {
        return pods(jobLabels, teamLabels, new PodJobs(PodJobIds.POD));
    }

    private KubeletPods pods(List<String> jobLabels, List<String> teamLabels, PodJobs podJobs) {
        return new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(), jobLabels, teamLabels,
                podJobs, clock, Runnable::run);
    }
}
