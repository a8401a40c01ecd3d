package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodJobIdsTest {

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
    void shouldSayEachNameOfSeveralNamespacesOnceAndNothingOfANameInOne() {
        PodJobIds.SameNamed sameNamed = new PodJobIds.SameNamed();

        assertThat(sameNamed.unsaid(PodJobIds.POD, Map.of("web-0", Set.of("shop"), "nb-0", Set.of("zed", "amy"))))
                .containsExactly("pods named nb-0 in namespaces amy, zed count as one job 'nb-0';"
                        + " kubernetes.job-ids=namespace/pod tells them apart");
        assertThat(sameNamed.unsaid(PodJobIds.POD, Map.of("nb-0", Set.of("zed", "amy", "bo")))).isEmpty();
        assertThat(new PodJobIds.SameNamed().unsaid(PodJobIds.NAMESPACE_POD, Map.of("nb-0", Set.of("zed", "amy"))))
                .as("two jobs already").isEmpty();
    }
}
