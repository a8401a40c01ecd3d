package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodJobsTest {

    @Test
    void shouldWriteTheNamespaceOnlyWhereItIsKnown() {
        assertThat(PodJobIds.NAMESPACE_POD.jobOf("alice", "notebook-0")).isEqualTo("alice/notebook-0");
        assertThat(PodJobIds.NAMESPACE_POD.jobOf(null, "notebook-0")).isEqualTo("notebook-0");
        assertThat(PodJobIds.NAMESPACE_POD.jobOf(" ", "notebook-0")).isEqualTo("notebook-0");
        assertThat(PodJobIds.POD.jobOf("alice", "notebook-0")).isEqualTo("notebook-0");
    }

    @Test
    void shouldReadTheSettingsFourValuesAndRefuseAnyOther() {
        assertThat(PodJobIds.fromSetting("pod")).isEqualTo(PodJobIds.POD);
        assertThat(PodJobIds.fromSetting("namespace/pod")).isEqualTo(PodJobIds.NAMESPACE_POD);
        assertThat(PodJobIds.fromSetting("workload")).isEqualTo(PodJobIds.WORKLOAD);
        assertThat(PodJobIds.fromSetting("namespace/workload")).isEqualTo(PodJobIds.NAMESPACE_WORKLOAD);
        assertThatThrownBy(() -> PodJobIds.fromSetting("Namespace/Pod")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kubernetes.job-ids: 'Namespace/Pod' is none of pod, namespace/pod, workload,"
                        + " namespace/workload");
    }

    @Test
    void shouldNameAPodAfterItsWorkloadWhereOneIsKnownAndSayWorkloadsOfOneNameInTwoNamespaces() {
        // Given the workloads of two replicas named "web" in two namespaces, as the kubelet's list would give them
        Map<String, String> workloads = Map.of("shop/web-7d9f8c6b5-x2k4q", "web", "blog/web-5c4b3a291-q9w8e", "web");
        PodJobs podJobs = new PodJobs(PodJobIds.WORKLOAD);
        podJobs.workloadsFrom((namespace, pod) -> Optional.ofNullable(workloads.get(namespace + "/" + pod)));

        assertThat(podJobs.named("shop", "web-7d9f8c6b5-x2k4q")).isEqualTo("web");
        assertThat(podJobs.named("blog", "web-5c4b3a291-q9w8e")).isEqualTo("web");
        assertThat(podJobs.jobOf("shop", "nb-0")).as("a pod of no workload known").isEqualTo("nb-0");
        assertThat(podJobs.jobOf("shop", "nb-0", Optional.of("lab"))).isEqualTo("lab");
        assertThat(podJobs.drainSameNamed()).containsExactly("pods (or their workloads) named web in namespaces blog,"
                + " shop get one job id 'web'; kubernetes.job-ids=namespace/workload tells them apart");

        PodJobs byNamespace = new PodJobs(PodJobIds.NAMESPACE_WORKLOAD);
        byNamespace.workloadsFrom((namespace, pod) -> Optional.ofNullable(workloads.get(namespace + "/" + pod)));
        assertThat(byNamespace.named("shop", "web-7d9f8c6b5-x2k4q")).isEqualTo("shop/web");
        assertThat(byNamespace.drainSameNamed()).isEmpty();
        // and a pod's own name where jobs are named after pods, whatever its workload
        assertThat(new PodJobs(PodJobIds.POD).jobOf("shop", "web-7d9f8c6b5-x2k4q", Optional.of("web")))
                .isEqualTo("web-7d9f8c6b5-x2k4q");
    }

    @Test
    void shouldSayOnceEachPodNameNotedInSeveralNamespacesInOneRound() {
        PodJobs podJobs = new PodJobs(PodJobIds.POD);

        podJobs.named("shop", "web-0");
        podJobs.named("zed", "nb-0");
        podJobs.named("amy", "nb-0");
        podJobs.named(null, "nb-0");
        podJobs.named("amy", "nb-0");
        assertThat(podJobs.drainSameNamed()).containsExactly("pods named nb-0 in namespaces amy, zed get one job id"
                + " 'nb-0'; kubernetes.job-ids=namespace/pod tells them apart");

        podJobs.named("zed", "nb-0");
        podJobs.named("bo", "nb-0");
        podJobs.named("shop", "web-0");
        assertThat(podJobs.drainSameNamed()).as("nb-0 said; web-0 in one namespace a round").isEmpty();
        podJobs.named("dev", "web-0");
        assertThat(podJobs.drainSameNamed()).as("rounds apart").isEmpty();
    }

    @Test
    void shouldSayNothingWhereTheNamespaceIsInTheJob() {
        PodJobs podJobs = new PodJobs(PodJobIds.NAMESPACE_POD);

        podJobs.named("zed", "nb-0");
        podJobs.named("amy", "nb-0");

        assertThat(podJobs.drainSameNamed()).isEmpty();
        assertThat(podJobs.jobOf("zed", "nb-0")).isEqualTo("zed/nb-0");
    }
}
