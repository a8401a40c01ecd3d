package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.owners.DraClaims;
import io.gpuledger.ingest.agent.owners.DraOwners;
import io.gpuledger.ingest.agent.owners.KubeletPods;
import io.gpuledger.ingest.agent.owners.KubernetesOwners;
import io.gpuledger.ingest.agent.owners.MigInstances;
import io.gpuledger.ingest.agent.owners.ProcessOwners;
import io.gpuledger.ingest.agent.owners.ReportedOwners;
import io.gpuledger.ingest.agent.owners.SlurmOwners;
import io.gpuledger.ingest.agent.progress.ProgressReports;
import io.gpuledger.ingest.agent.share.GpuSharing;
import io.gpuledger.ingest.agent.usage.HamiUsage;
import io.gpuledger.ingest.agent.usage.NvidiaSmiProcesses;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.agent.usage.PodOwners;
import io.gpuledger.ingest.agent.usage.UsageSource;
import io.gpuledger.model.SharePolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The agent's view of shared GPUs as its settings ({@code share.*}, {@code hami.url}, {@code kubelet.*},
 * {@code kubernetes.*}) set it.
 */
final class GpuSharingSettings {

    private static final List<String> SOURCES = List.of("dcgm-exporter", "hami", "nvidia-smi");

    private GpuSharingSettings() {
    }

    /**
     * Who uses each GPU, as {@code share.sources} says: in {@code auto}, nvidia-smi's process lists only where the
     * nvidia-smi collector runs (and only if the program is there), HAMi only where its URL is given.
     */
    static GpuSharing sharing(AgentConfig config, ProgressReports reports, String host, Clock clock,
            PodJobs podJobs) {
        SharePolicy policy;
        try {
            policy = SharePolicy.fromWire(config.text("share.policy"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("share.policy: " + e.getMessage(), e);
        }
        List<String> named = config.list("share.sources");
        boolean off = named.equals(List.of("none"));
        if (off && !podJobs.ids().byWorkload()) {
            return GpuSharing.off();
        }
        Optional<KubeletPods> pods = config.get("kubelet.url").map(url -> new KubeletPods(URI.create(url),
                config.get("kubelet.token-file").map(Path::of), config.get("kubelet.ca-file").map(Path::of),
                config.list("kubelet.job-labels"),
                config.list("kubelet.team-labels"), podJobs, clock));
        pods.ifPresent(podJobs::workloadsFrom);
        if (off) {
            // The kubelet is still read for the jobs dcgm-exporter names after pods: what goes wrong is said.
            return pods.map(kubelet -> GpuSharing.off(kubelet.errorsOnly())).orElseGet(GpuSharing::off);
        }
        boolean auto = named.equals(List.of("auto"));
        for (String source : named) {
            if (!auto && !SOURCES.contains(source)) {
                throw new IllegalArgumentException("share.sources: unknown source '" + source + "'; auto, none, or a"
                        + " list of dcgm-exporter, hami, nvidia-smi");
            }
        }
        List<UsageSource> sources = new ArrayList<>();
        Optional<String> hami = config.get("hami.url");
        if (auto ? hami.isPresent() : named.contains("hami")) {
            sources.add(new HamiUsage(URI.create(hami.orElseThrow(() -> new IllegalArgumentException(
                    "share.sources names hami: give hami.url"))), Duration.ofSeconds(3), podJobs,
                    pods.<PodOwners>map(kubelet -> kubelet).orElse(PodOwners.none())));
        }
        if (auto ? config.flag("nvidia-smi.enabled") : named.contains("nvidia-smi")) {
            sources.add(NvidiaSmiProcesses.of(config.text("processes.nvidia-smi"), Duration.ofSeconds(10),
                    config.seconds("interval"), !auto));
        }
        Path proc = Path.of(config.text("proc.root"));
        List<ProcessOwners> owners = new ArrayList<>();
        // Slurm first: a job step in a pod (slurmd run by Kubernetes) is its Slurm job's, not the slurmd pod's; a
        // process of any other pod names no Slurm job.
        owners.add(new SlurmOwners(proc));
        pods.ifPresent(kubelet -> owners.add(new KubernetesOwners(proc, kubelet)));
        Optional<DraClaims> claims = draClaims(config, pods, podJobs, host, clock);
        claims.ifPresent(dra -> owners.add(new DraOwners(proc, dra)));
        owners.add(new ReportedOwners(reports, clock));
        GpuSharing.GpuHolders holders = claims.<GpuSharing.GpuHolders>map(dra -> dra::holderOf)
                .orElse(gpu -> Optional.empty());
        return new GpuSharing(policy, auto || named.contains("dcgm-exporter"), sources, ProcessOwners.firstOf(owners),
                holders);
    }

    /** The DRA claims of this node's GPUs, where the API server is given ({@code kubernetes.*}). */
    private static Optional<DraClaims> draClaims(AgentConfig config, Optional<KubeletPods> pods, PodJobs podJobs,
            String host, Clock clock) {
        return config.get("kubernetes.api-url").map(url -> new DraClaims(URI.create(url),
                config.get("kubernetes.node-name").orElse(host), config.get("kubernetes.token-file").map(Path::of),
                config.get("kubernetes.ca-file").map(Path::of), pods, podJobs, clock,
                MigInstances.of(config.text("processes.nvidia-smi"), Duration.ofSeconds(10))));
    }

    /**
     * The agent's jobs named after their pods, written as {@code kubernetes.job-ids} says, by every source.
     *
     * @throws IllegalArgumentException where they are named after workloads, which only the kubelet's pod list gives,
     *                                  and no {@code kubelet.url} is given
     */
    static PodJobs podJobs(AgentConfig config) {
        PodJobIds ids = PodJobIds.fromSetting(config.text(PodJobIds.SETTING));
        if (ids.byWorkload() && config.get("kubelet.url").isEmpty()) {
            throw new IllegalArgumentException(PodJobIds.SETTING + "=" + ids.wire() + " names jobs after the"
                    + " workloads the kubelet's pod list gives: give kubelet.url");
        }
        return new PodJobs(ids);
    }
}
