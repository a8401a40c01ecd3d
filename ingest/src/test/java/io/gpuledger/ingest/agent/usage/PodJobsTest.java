package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void shouldReadTheSettingsTwoValuesAndRefuseAnyOther() {
        assertThat(PodJobIds.fromSetting("pod")).isEqualTo(PodJobIds.POD);
        assertThat(PodJobIds.fromSetting("namespace/pod")).isEqualTo(PodJobIds.NAMESPACE_POD);
        assertThatThrownBy(() -> PodJobIds.fromSetting("Namespace/Pod")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kubernetes.job-ids: 'Namespace/Pod' is neither pod nor namespace/pod");
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
