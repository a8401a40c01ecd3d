package io.gpuledger.ingest.agent.usage;

import io.gpuledger.ingest.prom.PrometheusText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads HAMi's per-container metrics (its vGPU monitor, also served by kai-resource-isolator): each
 * container's share of its GPU's SM time ({@code hami_container_device_utilization_ratio}) and the GPU
 * memory it holds ({@code hami_vgpu_memory_used_bytes}, or the older {@code hami_container_device_memory_bytes}),
 * by {@code device_uuid}, {@code pod}, {@code namespace} and {@code container}. The names of HAMi before 2.6
 * ({@code Device_utilization_desc_of_container}, {@code Device_memory_desc_of_container}, labels
 * {@code deviceuuid}, {@code podname}, {@code podnamespace}, {@code ctrname}) are read too. A container's
 * job and team are its pod's as the kubelet's labels give them ({@link PodOwners}) where the kubelet lists the
 * pod, as for a process found in that pod; else its pod (as {@link PodJobIds} writes it) and its namespace, as
 * for dcgm-exporter's labels. A utilisation is a percent, whatever the {@code _ratio} in its name: HAMi's monitor
 * writes the container's SM use as a whole percent (its {@code cmd/vGPUmonitor/metrics.go}), so 1 is 1%, not all
 * of the GPU. It adds up the use of the container's processes, so more than 100 happens (Project-HAMi/HAMi#555):
 * that container kept the GPU busy, and is read as all of it. The page says nothing of the GPU's own memory:
 * a split by memory takes it from the GPU's reading.
 */
public final class HamiScrape {

    private static final Set<String> UTILISATION = Set.of("hami_container_device_utilization_ratio",
            "Device_utilization_desc_of_container");
    private static final Set<String> MEMORY = Set.of("hami_vgpu_memory_used_bytes",
            "hami_container_device_memory_bytes", "Device_memory_desc_of_container");

    private final PodJobs podJobs;
    private final PodOwners pods;

    /** Each container named after its pod. */
    public HamiScrape(PodJobs podJobs) {
        this(podJobs, PodOwners.none());
    }

    /** Each container named by its pod's labels where {@code pods} lists it, else after its pod. */
    public HamiScrape(PodJobs podJobs, PodOwners pods) {
        this.podJobs = podJobs;
        this.pods = pods;
    }

    /** Each GPU's containers on the page, by their pods' jobs (noted), and what was wrong with the page. */
    public UsageSource.Result read(String page) {
        PrometheusText.Scrape scrape = PrometheusText.parse(page);
        List<String> errors = new ArrayList<>(scrape.errors());
        Map<String, Map<String, Container>> byGpu = new LinkedHashMap<>();
        for (PrometheusText.Sample sample : scrape.samples()) {
            boolean utilisation = UTILISATION.contains(sample.name());
            if (!utilisation && !MEMORY.contains(sample.name())) {
                continue;
            }
            String gpu = label(sample, "device_uuid", "deviceuuid");
            String pod = label(sample, "pod", "podname");
            if (gpu == null || pod == null) {
                errors.add(sample.name() + ": a series without its GPU or pod, skipped");
                continue;
            }
            double value = sample.value();
            if (!(value >= 0) || Double.isInfinite(value)) {
                errors.add(sample.name() + " of " + pod + " on " + gpu + ": " + value + " is out of range, skipped");
                continue;
            }
            String namespace = label(sample, "namespace", "podnamespace");
            String container = label(sample, "container", "ctrname");
            Container seen = byGpu.computeIfAbsent(gpu, k -> new LinkedHashMap<>())
                    .computeIfAbsent(namespace + "/" + pod + "/" + container, k -> new Container(pod, namespace));
            if (utilisation) {
                // Its processes' use added up: over 100 % is a GPU kept busy, all of it.
                seen.smRatio = Math.min(1, value / 100);
            } else if (seen.memoryBytes == null || !sample.name().equals("hami_container_device_memory_bytes")) {
                // The current name wins over the one HAMi deprecates.
                seen.memoryBytes = value;
            }
        }
        Map<String, GpuUsers> users = new LinkedHashMap<>();
        byGpu.forEach((gpu, containers) -> users.put(gpu, new GpuUsers(gpu, "hami", containers.values().stream()
                .map(this::user).toList(), null)));
        return new UsageSource.Result(users, errors);
    }

    private GpuUser user(Container container) {
        Optional<Owner> listed = container.namespace == null ? Optional.empty()
                : pods.ownerOf(container.namespace, container.pod);
        Owner owner = listed.orElseGet(() -> new Owner(podJobs.named(container.namespace, container.pod),
                container.namespace));
        return GpuUser.container(owner, container.smRatio, container.memoryBytes);
    }

    private static String label(PrometheusText.Sample sample, String name, String olderName) {
        String value = sample.label(name);
        if (value == null || value.isBlank()) {
            value = sample.label(olderName);
        }
        return value == null || value.isBlank() ? null : value;
    }

    private static final class Container {
        private final String pod;
        private final String namespace;
        private Double smRatio;
        private Double memoryBytes;

        private Container(String pod, String namespace) {
            this.pod = pod;
            this.namespace = namespace;
        }
    }
}
