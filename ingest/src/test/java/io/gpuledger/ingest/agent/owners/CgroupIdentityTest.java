package io.gpuledger.ingest.agent.owners;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The cgroup paths the kubelet (cgroupfs and systemd drivers), container runtimes and Slurm write. */
class CgroupIdentityTest {

    private static final String UID = "0f1d2b3c-4a5b-6c7d-8e9f-0a1b2c3d4e5f";
    private static final String ID = "3b1c0a5e9d8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b";

    @Test
    void shouldReadThePodAndContainerOfCgroupV1WithTheCgroupfsDriver() {
        String file = "12:memory:/kubepods/burstable/pod" + UID + "/" + ID + "\n"
                + "11:cpu,cpuacct:/kubepods/burstable/pod" + UID + "/" + ID + "\n"
                + "1:name=systemd:/kubepods/burstable/pod" + UID + "/" + ID + "\n";

        assertThat(CgroupIdentity.parse(file)).isEqualTo(new CgroupIdentity(UID, ID, null));
    }

    @Test
    void shouldReadThePodOfCgroupV2WithTheSystemdDriverInEachRuntimesScope() {
        String pod = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                + UID.replace('-', '_') + ".slice/";

        assertThat(CgroupIdentity.parse("0::" + pod + "cri-containerd-" + ID + ".scope\n"))
                .isEqualTo(new CgroupIdentity(UID, ID, null));
        assertThat(CgroupIdentity.parse("0::" + pod + "crio-" + ID + ".scope\n"))
                .isEqualTo(new CgroupIdentity(UID, ID, null));
        assertThat(CgroupIdentity.parse("3:devices:" + pod + "docker-" + ID + ".scope\n"))
                .isEqualTo(new CgroupIdentity(UID, ID, null));
        // a Guaranteed pod sits right under kubepods
        assertThat(CgroupIdentity.parse("0::/kubepods.slice/kubepods-pod" + UID.replace('-', '_')
                + ".slice/cri-containerd-" + ID + ".scope")).isEqualTo(new CgroupIdentity(UID, ID, null));
    }

    @Test
    void shouldReadTheUidOfAStaticPodThirtyTwoHexDigitsWithoutDashesUnderEitherDriver() {
        // the kubelet names a static pod by an MD5 of its manifest: 32 hex digits, no dashes to turn to underscores
        String staticUid = "3b5b1b5a8c9d4b2e8f7a6c5d4e3f2a1b";

        assertThat(CgroupIdentity.parse("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + staticUid + ".slice/cri-containerd-" + ID + ".scope\n"))
                .isEqualTo(new CgroupIdentity(staticUid, ID, null));
        assertThat(CgroupIdentity.parse("12:memory:/kubepods/besteffort/pod" + staticUid + "/" + ID + "\n"))
                .isEqualTo(new CgroupIdentity(staticUid, ID, null));
        assertThat(CgroupIdentity.parse("0::/kubepods.slice/kubepods-pod" + staticUid.toUpperCase(Locale.ROOT)
                + ".slice/cri-containerd-" + ID + ".scope\n")).as("as the kubelet writes it, in lower case")
                .isEqualTo(new CgroupIdentity(staticUid, ID, null));
    }

    @Test
    void shouldTakeNoLongerRunOfHexDigitsForAPodUid() {
        assertThat(CgroupIdentity.parse("0::/kubepods.slice/kubepods-pod" + "0".repeat(33) + ".slice/x\n"))
                .isEqualTo(CgroupIdentity.NONE);
    }

    @Test
    void shouldReadTheSlurmJobOfEitherCgroupVersion() {
        assertThat(CgroupIdentity.parse("4:devices:/slurm/uid_1000/job_4242/step_0/task_0\n").slurmJobId())
                .isEqualTo("4242");
        assertThat(CgroupIdentity.parse("0::/system.slice/slurmstepd.scope/job_977/step_batch/user/task_0\n")
                .slurmJobId()).isEqualTo("977");
    }

    @Test
    void shouldFindNoOneInAHostProcessOrAFileItCannotRead() {
        assertThat(CgroupIdentity.parse("0::/user.slice/user-1000.slice/session-3.scope\n"))
                .isEqualTo(CgroupIdentity.NONE);
        assertThat(CgroupIdentity.parse("0::/system.slice/job_12.service\n")).isEqualTo(CgroupIdentity.NONE);
        assertThat(CgroupIdentity.parse("garbage without fields\n\n::")).isEqualTo(CgroupIdentity.NONE);
    }
}
