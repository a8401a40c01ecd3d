package io.gpuledger.ingest.agent.usage;

import io.gpuledger.ingest.prom.PrometheusText;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads HAMi's per-container metrics (its vGPU monitor, also served by kai-resource-isolator): each
 * container's share of its GPU's SM time ({@code hami_container_device_utilization_ratio}) and the GPU
 * memory it holds ({@code hami_vgpu_memory_used_bytes}, or the older {@code hami_container_device_memory_bytes}),
 * by {@code device_uuid}, {@code pod}, {@code namespace} and {@code container}. The names of HAMi before 2.9
 * ({@code Device_utilization_desc_of_container}, {@code Device_memory_desc_of_container}, labels
 * {@code deviceuuid}, {@code podname}, {@code podnamespace}, {@code ctrname}) are read too. A container's
 * job and team are its pod's as the kubelet's labels give them ({@link PodOwners}) where the kubelet lists the
 * pod, as for a process found in that pod; else its pod (as {@link PodJobIds} writes it) and its namespace, as
 * for dcgm-exporter's labels. A utilisation is a percent, whatever the {@code _ratio} in its name: HAMi's monitor
 * writes the container's SM use as a whole percent (its {@code cmd/vGPUmonitor/metrics.go}), so 1 is 1%, not all
 * of the GPU. It adds up the use of the container's processes, so more than 100 happens (Project-HAMi/HAMi#555):
 * that container kept the GPU busy, and is read as all of it. The page says nothing of the GPU's own memory:
 * a split by memory takes it from the GPU's reading.
 *
 * <p>HAMi measures a container's SM use only where the container sets a core limit ({@code gpucores}, 1 to 100):
 * without one it writes 0 however busy the container is (HAMi-core's {@code multiprocess_utilization_watcher.c},
 * Project-HAMi/HAMi-core#236). Where every container on a GPU reads 0 while the GPU's own utilisation
 * ({@code hami_host_gpu_utilization_ratio}, {@code HostCoreUtilization} before HAMi 2.9) is at least
 * {@link #BUSY_GPU}, its containers' SM use is taken as not measured, so that the split goes by memory, and that is
 * said once per GPU. Where some containers set a limit and others not, the zeros cannot be told from idleness:
 * such pools split by memory ({@code share.policy}, docs/agent.md).
 */
public final class HamiScrape {

    private static final Set<String> UTILISATION = Set.of("hami_container_device_utilization_ratio",
            "Device_utilization_desc_of_container");
    private static final Set<String> MEMORY = Set.of("hami_vgpu_memory_used_bytes",
            "hami_container_device_memory_bytes", "Device_memory_desc_of_container");

    /** The GPU's own utilisation, a percent: {@code hami_host_gpu_utilization_ratio}, or its name before HAMi 2.9. */
    private static final Set<String> GPU_UTILISATION = Set.of("hami_host_gpu_utilization_ratio",
            "HostCoreUtilization");
    /** A GPU at least this busy, whose containers all read 0, had its use measured for none of them. */
    static final double BUSY_GPU = 0.05;

    private final PodJobs podJobs;
    private final PodOwners pods;
    /** GPUs whose containers' SM use was said not measured: said once, not every scrape. */
    private final Set<String> saidUnmeasured = new HashSet<>();

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
        Map<String, Double> gpuBusy = new HashMap<>();
        for (PrometheusText.Sample sample : scrape.samples()) {
            if (GPU_UTILISATION.contains(sample.name())) {
                String gpu = label(sample, "device_uuid", "deviceuuid");
                if (gpu != null && readable(sample.value())) {
                    gpuBusy.put(gpu, sample.value() / 100);
                }
                continue;
            }
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
            if (!readable(value)) {
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
        byGpu.forEach((gpu, containers) -> {
            unmeasuredSm(gpu, containers.values(), gpuBusy.get(gpu), errors);
            users.put(gpu, new GpuUsers(gpu, "hami", containers.values().stream().map(this::user).toList(), null));
        });
        return new UsageSource.Result(users, errors);
    }

    /**
     * Takes the containers' SM use as not measured where all read 0 while their GPU was {@code busy} (0–1, null if the
     * page does not say) at least {@link #BUSY_GPU}: none of them set a core limit.
     */
    private void unmeasuredSm(String gpu, Collection<Container> containers, Double busy, List<String> errors) {
        boolean noneMeasured = containers.stream().allMatch(c -> c.smRatio == null || c.smRatio == 0);
        if (busy == null || busy < BUSY_GPU || !noneMeasured) {
            return;
        }
        containers.forEach(container -> container.smRatio = null);
        if (saidUnmeasured.add(gpu)) {
            errors.add("hami: every container on " + gpu + " reads 0% SM while the GPU is " + Math.round(busy * 100)
                    + "% busy: HAMi measures only containers with a core limit (gpucores); split by memory");
        }
    }

    private GpuUser user(Container container) {
        Optional<Owner> listed = container.namespace == null ? Optional.empty()
                : pods.ownerOf(container.namespace, container.pod);
        Owner owner = listed.orElseGet(() -> new Owner(podJobs.named(container.namespace, container.pod),
                container.namespace));
        return GpuUser.container(owner, container.smRatio, container.memoryBytes);
    }

    /** Whether a value is a reading: HAMi writes none below 0, and NaN and infinities are none. */
    private static boolean readable(double value) {
        return value >= 0 && !Double.isInfinite(value);
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
