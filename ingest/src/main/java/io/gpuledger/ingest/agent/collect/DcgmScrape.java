package io.gpuledger.ingest.agent.collect;

import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.prom.PrometheusText;
import io.gpuledger.model.Reading;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a dcgm-exporter scrape into GPU readings. dcgm-exporter's upper-case field names and
 * camel-case labels are an input format: they are normalised here and go no further.
 *
 * <ul>
 *   <li>One reading per GPU ({@code UUID} label), or per MIG instance ({@code UUID} plus
 *       {@code GPU_I_ID}; its UUID becomes {@code <GPU UUID>/mig/<GPU_I_ID>} and its
 *       {@code gpuFraction} the slice's share from {@code GPU_I_PROFILE}).</li>
 *   <li>Both host label spellings ({@code Hostname}, {@code hostname}).</li>
 *   <li>Field names of every dcgm-exporter generation, old and renamed ({@link #FIELDS}).</li>
 *   <li>DCGM blank sentinels, NaN and out-of-range values are left out, never reported as readings.</li>
 *   <li>Job and team come from Kubernetes labels named in allow-lists, first present wins; no
 *       other label is read, so no free-form label reaches a topic.</li>
 *   <li>A GPU shared by several pods ({@code --kubernetes-virtual-gpus}) has one series per pod. From
 *       dcgm-exporter 4.5.3-4.8.2, {@code DCGM_FI_DEV_GPU_UTIL} and {@code DCGM_FI_DEV_FB_USED} come as the GPU's
 *       own series (no pod) and one per pod with that pod's processes' own values (NVML's per-process
 *       samples; memory alone on a MIG slice): the pods are the GPU's {@linkplain GpuReading#users() users}, one
 *       per pod (the exporter writes a pod's value on each of its containers' series), a pod's utilisation over 100%
 *       read as all of it. Where every pod reads 0 while the GPU's own series say it is in use, the exporter could
 *       map no process to its pod (without {@code hostPID}): they are not its users, and that is said once.
 *       Every other field is the GPU's, copied to each pod. Earlier exporters copied these two as well, with
 *       no series of the GPU's own: such pods are not used to split the GPU, and that is said once. Either way,
 *       no one of a GPU's several pods is taken as its job: the labels of the pod listed first would charge it
 *       all the GPU where the split is not made (sharing switched off, or no other source). Several pods are
 *       known from every pod any of the GPU's series names, whether or not one has a usable reading of its
 *       own.</li>
 *   <li>A GPU's memory, its {@code DCGM_FI_DEV_FB_USED}, {@code FB_FREE} and {@code FB_RESERVED} together, is
 *       its reading's {@linkplain GpuReading#memoryTotalBytes() total}: what a split by memory divides by, also
 *       of users another source sees (HAMi's containers).</li>
 * </ul>
 */
public final class DcgmScrape {

    /** How a dcgm metric writes its value. */
    enum Unit {
        RATIO,
        PERCENT,
        /**
         * The {@code _RATIO} names of DCGM 4.6 kept a percent value for GPU utilisation, which later
         * releases turned into 0–1: above 1 it must be a percent. A reading of exactly 1 is taken as
         * a ratio (fully busy).
         */
        PERCENT_OR_RATIO,
        WATTS,
        MEBIBYTES,
        BYTES_PER_SECOND;

        double toBase(double value) {
            return switch (this) {
                case PERCENT -> value / 100;
                case PERCENT_OR_RATIO -> value > 1 ? value / 100 : value;
                case MEBIBYTES -> value * 1024 * 1024;
                default -> value;
            };
        }
    }

    /** The reading a dcgm metric gives, and how it writes its value. */
    record Mapping(Reading reading, Unit unit) {
    }

    /**
     * dcgm-exporter metric names of every generation. DCGM 4.6 renamed the profiling fields to
     * {@code _RATIO} forms and some device fields (same field ids); exporters emit either.
     */
    static final Map<String, Mapping> FIELDS = Map.ofEntries(
            Map.entry("DCGM_FI_PROF_SM_ACTIVE", new Mapping(Reading.SM_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_SM_UTIL_RATIO", new Mapping(Reading.SM_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_SM_OCCUPANCY", new Mapping(Reading.SM_OCCUPANCY, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_SM_OCCUPANCY_RATIO", new Mapping(Reading.SM_OCCUPANCY, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_DRAM_ACTIVE", new Mapping(Reading.DRAM_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_DRAM_UTIL_RATIO", new Mapping(Reading.DRAM_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", new Mapping(Reading.TENSOR_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_PROF_TENSOR_UTIL_RATIO", new Mapping(Reading.TENSOR_ACTIVE, Unit.RATIO)),
            Map.entry("DCGM_FI_DEV_GPU_UTIL", new Mapping(Reading.GPU_UTILIZATION, Unit.PERCENT)),
            Map.entry("DCGM_FI_DEV_GPU_UTIL_RATIO", new Mapping(Reading.GPU_UTILIZATION, Unit.PERCENT_OR_RATIO)),
            Map.entry("DCGM_FI_DEV_POWER_USAGE", new Mapping(Reading.POWER_WATTS, Unit.WATTS)),
            Map.entry("DCGM_FI_DEV_BOARD_POWER_WATTS", new Mapping(Reading.POWER_WATTS, Unit.WATTS)),
            Map.entry("DCGM_FI_DEV_POWER_MGMT_LIMIT", new Mapping(Reading.POWER_LIMIT_WATTS, Unit.WATTS)),
            Map.entry("DCGM_FI_DEV_BOARD_POWER_LIMIT_REQUESTED_WATTS", new Mapping(Reading.POWER_LIMIT_WATTS,
                    Unit.WATTS)),
            Map.entry("DCGM_FI_DEV_FB_USED", new Mapping(Reading.MEMORY_USED_BYTES, Unit.MEBIBYTES)),
            Map.entry("DCGM_FI_PROF_NVLINK_TX_BYTES", new Mapping(Reading.NVLINK_TX_BYTES_PER_SECOND,
                    Unit.BYTES_PER_SECOND)),
            Map.entry("DCGM_FI_PROF_PCIE_TX_BYTES", new Mapping(Reading.PCIE_TX_BYTES_PER_SECOND,
                    Unit.BYTES_PER_SECOND)));

    /**
     * The graphics engine's activity, old and renamed: SM activity where the exporter has no SM field
     * ({@link #activity}).
     */
    private static final Mapping ENGINE_MAPPING = new Mapping(Reading.SM_ACTIVE, Unit.RATIO);

    static final Set<String> ENGINE_ACTIVE = Set.of("DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO");

    /** Whether a dcgm-exporter metric of this name gives a reading. */
    static boolean reads(String metric) {
        return FIELDS.containsKey(metric) || ENGINE_ACTIVE.contains(metric);
    }

    /** The readings dcgm-exporter 4.5.3-4.8.2 and later give per pod on a shared GPU; it copies all others. */
    private static final Set<Reading> PER_POD = Set.of(Reading.GPU_UTILIZATION, Reading.MEMORY_USED_BYTES);
    /**
     * The fields whose pod series hold the pod's own value (its processes', from NVML): these two by their exact
     * names. Any other, {@code DCGM_FI_DEV_GPU_UTIL_RATIO} too, is copied to each pod.
     */
    private static final Set<String> PER_POD_FIELDS = Set.of("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED");
    /** A GPU this busy whose pods all read 0 SM time had their use unmeasured, not none. */
    private static final double BUSY_GPU = 0.05;

    /** Memory the GPU holds besides what is used, for its total: free, and reserved by the driver. */
    private static final Set<String> MEMORY_NOT_USED = Set.of("DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED");

    /** The MIG profile named on the reading of the part of a MIG-mode GPU that no instance holds. */
    public static final String UNALLOCATED_MIG = "unallocated";

    private static final Pattern SLICES = Pattern.compile("(\\d+)g\\.");
    /** The labels of a series naming its pod: {@code pod}, or {@code pod_name} in the old label names. */
    private static final Set<String> POD_LABELS = Set.of("pod", "pod_name");

    /** Readings, and why values were left out ("field of GPU: why"). */
    public record Result(List<GpuReading> readings, List<String> errors) {
    }

    private static final double MIB = Unit.MEBIBYTES.toBase(1);
    /**
     * Memory a GPU holds with no process on it is the driver's, a few MiB at most; more is a process's (the smallest
     * CUDA context takes a few hundred MiB).
     */
    private static final double IN_USE_BYTES = 64 * MIB;

    /** The energy counter: millijoules since the driver loaded, per GPU. */
    static final String ENERGY_COUNTER = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
    /** More than any GPU draws (a GB200 superchip's board is 2.7 kW): a counter delta above it is no reading. */
    private static final double MOST_WATTS = 5000;

    /** Each GPU's energy counter at the last scrape. */
    private final Map<String, Counted> lastCounted = new java.util.HashMap<>();
    private final List<String> jobLabels;
    private final List<String> teamLabels;
    private final PodJobs podJobs;
    /** GPUs whose pods were said to carry copies: said once, not every scrape. */
    private final Set<String> saidCopies = new java.util.HashSet<>();
    /** GPUs whose pods all read 0 while it was in use: said once, not every scrape. */
    private final Set<String> saidUnmapped = new java.util.HashSet<>();
    /** GPUs whose pods' SM time was said to be unmeasured. */
    private final Set<String> saidSmUnmeasured = new java.util.HashSet<>();

    /**
     * @param jobLabels the labels naming a GPU's or pod's job, the first present wins; the pod's own ({@code pod},
     *                  {@code pod_name}), or none, names the job after the pod, written as {@code podJobs} says
     * @param podJobs   the agent's jobs named after their pods, each noted as a GPU's job or user is named after it
     */
    public DcgmScrape(List<String> jobLabels, List<String> teamLabels, PodJobs podJobs) {
        // An exporter run with --use-old-namespace writes pod_name and pod_namespace: the same labels, named as before.
        this.jobLabels = withOldNames(jobLabels);
        this.teamLabels = withOldNames(teamLabels);
        this.podJobs = podJobs;
    }

    /** As {@link #read(String, long)}, scraped now. */
    public Result read(String scrapeText) {
        return read(scrapeText, System.nanoTime());
    }

    /**
     * The readings of a page scraped at {@code scrapedAtNanos} ({@link System#nanoTime()}). A GPU whose page has the
     * energy counter ({@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION}, millijoules since the driver loaded) reads as
     * power the mean it drew since the last scrape, so that the energy charged is what the counter counted, not a
     * sample of the power at one instant; the first scrape, and one after the counter went back (the driver was
     * reloaded), read the instantaneous power.
     */
    public Result read(String scrapeText, long scrapedAtNanos) {
        PrometheusText.Scrape scrape = PrometheusText.parse(scrapeText);
        List<String> errors = new ArrayList<>(scrape.errors());
        Map<String, Builder> byGpu = new LinkedHashMap<>();
        for (PrometheusText.Sample sample : scrape.samples()) {
            String gpuUuid = sample.label("UUID");
            if (gpuUuid == null || gpuUuid.isBlank()) {
                continue;
            }
            String migInstance = sample.label("GPU_I_ID");
            String key = migInstance == null || migInstance.isBlank() ? gpuUuid : gpuUuid + "/mig/" + migInstance;
            // Every GPU in the scrape gets a reading, even one with none of the fields we map: it exists and is paid
            // for.
            Builder gpu = byGpu.computeIfAbsent(key, k -> new Builder(k, gpuUuid, migInstance != null
                    && !migInstance.isBlank()));
            gpu.add(sample.labels());
            if (sample.name().equals(ENERGY_COUNTER)) {
                if (sample.value() >= 0 && !DcgmBlank.isBlank(sample.value())) {
                    gpu.energyMillijoules = sample.value();
                }
                continue;
            }
            if (MEMORY_NOT_USED.contains(sample.name()) && sample.value() >= 0 && !DcgmBlank.isBlank(sample.value())) {
                gpu.memoryNotUsedMiB.put(sample.name(), sample.value());
                continue;
            }
            boolean engine = ENGINE_ACTIVE.contains(sample.name());
            Mapping mapping = engine ? ENGINE_MAPPING : FIELDS.get(sample.name());
            if (mapping == null) {
                continue;
            }
            double value = sample.value();
            if (DcgmBlank.isBlank(value)) {
                errors.add(sample.name() + " of " + key + ": DCGM blank value " + value + ", left out");
                continue;
            }
            boolean ratio = mapping.reading().range() == Reading.Range.RATIO;
            double scaled = mapping.unit().toBase(value);
            String pod = podOf(sample.labels());
            boolean podSeries = pod != null && !pod.isBlank();
            boolean perPod = !engine && PER_POD_FIELDS.contains(sample.name()) && podSeries;
            // A pod's utilisation adds up its processes' (several under MPS): over 100%, it kept the GPU busy.
            if (scaled < 0 || (ratio && !perPod && scaled > 1.0 + 1e-9)) {
                errors.add(sample.name() + " of " + key + ": " + value + " is out of range, left out");
                continue;
            }
            double kept = ratio ? Math.min(1, scaled) : scaled;
            if (engine) {
                gpu.engineActive = kept;
            } else if (perPod) {
                gpu.pod(sample.labels()).values.merge(mapping.reading(), kept, Math::max);
            } else {
                gpu.podless.put(mapping.reading(), kept);
                if (!podSeries && PER_POD_FIELDS.contains(sample.name())) {
                    gpu.ownSeries = true;
                }
            }
        }
        for (Builder gpu : byGpu.values()) {
            gpu.settlePods(errors);
            meanPowerFromCounter(gpu, scrapedAtNanos, errors);
        }
        return new Result(withUnallocatedMigShares(byGpu), errors);
    }

    /** The energy counter of a GPU at one scrape. */
    private record Counted(double millijoules, long atNanos) {
    }

    /**
     * Replaces the GPU's instantaneous power with the mean since the counter last moved, where it moved: an exporter
     * refreshes its values every collect interval (30 s by default), so a scrape in between sees the counter where
     * it was and keeps the instantaneous reading, and the next rise is spread over the whole time since.
     */
    private void meanPowerFromCounter(Builder gpu, long now, List<String> errors) {
        if (gpu.energyMillijoules == null || gpu.mig) {
            return;
        }
        double counter = gpu.energyMillijoules;
        Counted before = lastCounted.get(gpu.key);
        if (before == null || counter < before.millijoules()) {
            lastCounted.put(gpu.key, new Counted(counter, now));
            if (before != null) {
                errors.add(ENERGY_COUNTER + " of " + gpu.key + ": went back from " + before.millijoules() + " to "
                        + counter + " mJ (the driver was reloaded); the instantaneous power stands this round");
            }
            return;
        }
        if (counter == before.millijoules() || now <= before.atNanos()) {
            return;
        }
        lastCounted.put(gpu.key, new Counted(counter, now));
        double watts = (counter - before.millijoules()) / 1000 / ((now - before.atNanos()) / 1e9);
        if (watts > MOST_WATTS) {
            errors.add(ENERGY_COUNTER + " of " + gpu.key + ": " + Math.round(watts) + " W since the counter last"
                    + " moved is no GPU's; the instantaneous power stands this round");
            return;
        }
        gpu.values.put(Reading.POWER_WATTS, watts);
    }

    /**
     * A GPU in MIG mode is paid for whole, but only its instances are reported. The share no
     * instance holds stays under the GPU's own UUID as an idle reading (no kernel can run there),
     * so that it shows as idle cost instead of disappearing; a fully sliced GPU has no such reading.
     */
    private List<GpuReading> withUnallocatedMigShares(Map<String, Builder> byGpu) {
        List<GpuReading> readings = new ArrayList<>();
        Map<String, Double> slicedShare = new LinkedHashMap<>();
        for (Builder gpu : byGpu.values()) {
            if (gpu.mig) {
                GpuReading instance = reading(gpu);
                readings.add(instance);
                slicedShare.merge(gpu.parentUuid, instance.gpuFraction(), Double::sum);
            }
        }
        for (Builder gpu : byGpu.values()) {
            if (gpu.mig) {
                continue;
            }
            GpuReading whole = reading(gpu);
            Double sliced = slicedShare.get(gpu.parentUuid);
            if (sliced == null) {
                readings.add(whole);
            } else if (sliced < 1 - 1e-9) {
                GpuReading.Builder idle = GpuReading.builder(whole.uuid()).index(whole.index()).model(whole.model())
                        .slice(UNALLOCATED_MIG, 1 - sliced).reportedHost(whole.reportedHost())
                        .value(Reading.POWER_WATTS, whole.powerWatts());
                for (Reading activity : List.of(Reading.SM_ACTIVE, Reading.SM_OCCUPANCY, Reading.DRAM_ACTIVE,
                        Reading.TENSOR_ACTIVE, Reading.GPU_UTILIZATION)) {
                    idle.value(activity, 0.0);
                }
                readings.add(idle.build());
            }
        }
        return readings;
    }

    private GpuReading reading(Builder gpu) {
        Map<String, String> labels = gpu.labels;
        String profile = labels.get("GPU_I_PROFILE");
        boolean slice = profile != null && !profile.isBlank();
        GpuReading.Builder reading = GpuReading.builder(gpu.key).index(index(labels.get("gpu")))
                .model(labels.get("modelName"))
                .slice(slice ? profile : null, slice ? sliceShare(profile, labels.get("modelName")) : null)
                .jobId(gpu.severalPods ? null : gpuJob(labels))
                .team(gpu.severalPods ? null : firstLabel(labels, teamLabels))
                .reportedHost(labels.getOrDefault("Hostname", labels.get("hostname")))
                .users(gpu.users)
                .memoryTotalBytes(gpu.memoryTotalBytes());
        gpu.values.forEach(reading::value);
        return reading.value(Reading.SM_ACTIVE, activity(gpu)).build();
    }

    /**
     * SM activity, else the graphics engine's: many exporters are set up with the engine's field
     * alone (the usage field other cost tools read). It is the share of time the engine was busy,
     * coarser than SM activity (one SM at work counts as busy) but the closest reading a page may
     * have, and a GPU paid for must not lose its samples for want of the finer one.
     */
    private static Double activity(Builder gpu) {
        Double sm = gpu.values.get(Reading.SM_ACTIVE);
        return sm != null ? sm : gpu.engineActive;
    }

    /**
     * The share of a GPU a MIG profile takes: {@code 3g.40gb} is 3 of the 7 compute slices of an
     * A100 or H100 (4 on an A30). Unknown profile shapes count as a whole GPU rather than zero.
     */
    static Double sliceShare(String profile, String model) {
        Matcher matcher = SLICES.matcher(profile);
        if (!matcher.find()) {
            return 1.0;
        }
        int slices = model != null && model.toUpperCase(Locale.ROOT).contains("A30") ? 4 : 7;
        return Math.min(1.0, Integer.parseInt(matcher.group(1)) / (double) slices);
    }

    /** The pod of a series: {@code pod}, or {@code pod_name} where the exporter writes the old label names. */
    private static String podOf(Map<String, String> labels) {
        String pod = labels.get("pod");
        return pod == null || pod.isBlank() ? labels.get("pod_name") : pod;
    }

    /**
     * A series' pod: its UID ({@code pod_uid}, 4.5.3-4.8.2 and later), else its namespace and name. Not its container:
     * the exporter adds up a pod's processes by the pod's UID and writes that one value on the series of each of the
     * pod's containers (its {@code internal/pkg/transformation/kubernetes.go}), so two containers are one user.
     */
    private static String podKey(Map<String, String> labels) {
        String uid = labels.get("pod_uid");
        return uid != null && !uid.isBlank() ? "uid:" + uid : namespaceOf(labels) + "/" + podOf(labels);
    }

    private static Integer index(String gpu) {
        try {
            return gpu == null ? null : Integer.valueOf(gpu.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The job of a GPU of one pod (or none), noted: the first of the job labels present; one naming the pod
     * written as {@link #podJobs} says. Null when none is present.
     */
    private String gpuJob(Map<String, String> labels) {
        String label = firstLabelName(labels, jobLabels);
        if (label == null || !POD_LABELS.contains(label)) {
            return label == null ? null : labels.get(label);
        }
        return podJobs.named(namespaceOf(labels), labels.get(label));
    }

    /** {@code labels}, each of {@code pod} and {@code namespace} followed by its old name, where not given too. */
    private static List<String> withOldNames(List<String> labels) {
        List<String> names = new ArrayList<>();
        for (String label : labels) {
            names.add(label);
            String old = switch (label) {
                case "pod" -> "pod_name";
                case "namespace" -> "pod_namespace";
                default -> null;
            };
            if (old != null && !labels.contains(old)) {
                names.add(old);
            }
        }
        return List.copyOf(names);
    }

    /** The namespace of a series' pod: {@code namespace}, or {@code pod_namespace} in the old label names. */
    private static String namespaceOf(Map<String, String> labels) {
        String namespace = labels.get("namespace");
        if (namespace == null || namespace.isBlank()) {
            namespace = labels.get("pod_namespace");
        }
        return namespace == null || namespace.isBlank() ? null : namespace;
    }

    private static String firstLabel(Map<String, String> labels, List<String> allowed) {
        String name = firstLabelName(labels, allowed);
        return name == null ? null : labels.get(name);
    }

    /** The first of the {@code allowed} labels with a value; null when none has one. */
    private static String firstLabelName(Map<String, String> labels, List<String> allowed) {
        for (String name : allowed) {
            String value = labels.get(name);
            if (value != null && !value.isBlank()) {
                return name;
            }
        }
        return null;
    }

    /** One pod's series of a shared GPU: whose they are, and its own readings. */
    private static final class PodSeries {
        private final Owner owner;
        /** The pod's namespace and name, where its job is named after it (no job label names one); else null. */
        private final String namedAfterPodIn;
        private final String podName;
        private final Map<Reading, Double> values = new EnumMap<>(Reading.class);

        private PodSeries(Owner owner, String namedAfterPodIn, String podName) {
            this.owner = owner;
            this.namedAfterPodIn = namedAfterPodIn;
            this.podName = podName;
        }
    }

    private final class Builder {
        private final String key;
        private final String parentUuid;
        private final boolean mig;
        private final Map<String, String> labels = new LinkedHashMap<>();
        /** The GPU's readings once the pods' are settled. */
        private final Map<Reading, Double> values = new EnumMap<>(Reading.class);
        /** Readings of series without a pod: the GPU's own. */
        private final Map<Reading, Double> podless = new EnumMap<>(Reading.class);
        private final Map<String, PodSeries> pods = new LinkedHashMap<>();
        /** The owner of every pod any of the GPU's series names, by {@link #podKey}. */
        private final Map<String, Owner> podOwners = new LinkedHashMap<>();
        private final Map<String, Double> memoryNotUsedMiB = new LinkedHashMap<>();
        private Double engineActive;
        private Double energyMillijoules;
        private GpuUsers users;
        /** Whether several pods use the GPU: none of them is its one job, whatever their series say. */
        private boolean severalPods;
        /** Whether a field the exporter writes per pod has a series of the GPU's own beside them (4.5.3-4.8.2 on). */
        private boolean ownSeries;

        private Builder(String key, String parentUuid, boolean mig) {
            this.key = key;
            this.parentUuid = parentUuid;
            this.mig = mig;
        }

        /**
         * Labels of all the GPU's lines: exporters attach pod labels to some metrics only. The owner of every pod
         * seen is kept, whichever series names it, so that several pods are known as such even where none has a
         * usable series of its own.
         */
        private void add(Map<String, String> sampleLabels) {
            sampleLabels.forEach(labels::putIfAbsent);
            String pod = podOf(sampleLabels);
            if (pod != null && !pod.isBlank()) {
                podOwners.computeIfAbsent(podKey(sampleLabels), k -> series(sampleLabels).owner);
            }
        }

        private PodSeries pod(Map<String, String> sampleLabels) {
            return pods.computeIfAbsent(podKey(sampleLabels), k -> series(sampleLabels));
        }

        /** The series of the pod a sample names, with no readings yet: whose they are. */
        private PodSeries series(Map<String, String> sampleLabels) {
            String namespace = namespaceOf(sampleLabels);
            String label = firstLabelName(sampleLabels, jobLabels);
            String team = firstLabel(sampleLabels, teamLabels);
            if (label != null && !POD_LABELS.contains(label)) {
                return new PodSeries(new Owner(sampleLabels.get(label), team == null ? namespace : team), null, null);
            }
            String name = label == null ? podOf(sampleLabels) : sampleLabels.get(label);
            return new PodSeries(new Owner(podJobs.jobOf(namespace, name), team == null ? namespace : team),
                    namespace, name);
        }

        /**
         * The pods' own readings (4.5.3-4.8.2 and later: beside the GPU's own series) make the GPU's users; copies
         * (earlier exporters, no series of the GPU's own) are the GPU's reading, once.
         */
        private void settlePods(List<String> errors) {
            values.putAll(podless);
            // Pods by their owners: one pod's two containers are one job. Every pod seen counts, also one whose
            // own readings were blank or missing: the GPU is not the job of the pod listed first.
            severalPods = podOwners.values().stream().distinct().count() > 1;
            if (pods.isEmpty()) {
                return;
            }
            boolean own = ownSeries;
            if (severalPods && !own && saidCopies.add(key)) {
                errors.add("dcgm-exporter: the " + pods.size() + " pods of " + key + " carry copies of the GPU's"
                        + " readings, not their own (dcgm-exporter before 4.5.3-4.8.2): not used to split it,"
                        + " nor taken as its job");
            }
            for (Reading reading : PER_POD) {
                boolean seen = pods.values().stream().anyMatch(p -> p.values.containsKey(reading));
                if (!podless.containsKey(reading) && seen) {
                    values.put(reading, max(reading));
                }
            }
            if (pods.size() > 1 && own && nonePodsUse(errors)) {
                return;
            }
            if (pods.size() > 1 && own) {
                pods.values().stream().filter(pod -> pod.podName != null)
                        .forEach(pod -> podJobs.named(pod.namedAfterPodIn, pod.podName));
                boolean smMeasured = !mig && !smUnmeasured(errors);
                users = new GpuUsers(key, "dcgm-exporter", pods.values().stream()
                        .map(pod -> GpuUser.container(pod.owner, smMeasured ? pod.values.get(Reading.GPU_UTILIZATION)
                                : null, pod.values.get(Reading.MEMORY_USED_BYTES)))
                        .toList(), memoryTotalBytes());
            }
        }

        /**
         * Whether the pods' SM time was not measured: all read 0 (or none) while the GPU's own series say it was
         * {@link #BUSY_GPU} busy, as where NVML gives no per-process utilisation and the exporter writes 0. Their
         * memory still splits the GPU. Said once per GPU.
         */
        private boolean smUnmeasured(List<String> errors) {
            double busy = podless.getOrDefault(Reading.GPU_UTILIZATION, 0.0);
            List<Double> read = pods.values().stream().map(pod -> pod.values.get(Reading.GPU_UTILIZATION))
                    .filter(Objects::nonNull).toList();
            // Pods with no utilisation series have no SM share anyway: only pods' zeros are in question.
            if (busy < BUSY_GPU || read.isEmpty() || read.stream().anyMatch(sm -> sm > 0)) {
                return false;
            }
            if (saidSmUnmeasured.add(key)) {
                errors.add("dcgm-exporter: every pod of " + key + " reads 0% while the GPU is " + Math.round(busy * 100)
                        + "% busy: their SM time is not measured (NVML gives no per-process utilisation here);"
                        + " split by memory");
            }
            return true;
        }

        /**
         * Whether every pod reads 0 while the GPU's own series say it is in use: the exporter writes 0 for each pod
         * none of whose processes it could map, and maps none without the host's process table ({@code hostPID}),
         * so its pods are no measure of who used it. Said once per GPU; another source (HAMi, nvidia-smi) may tell.
         */
        private boolean nonePodsUse(List<String> errors) {
            boolean podsUsedNothing = pods.values().stream()
                    .allMatch(pod -> pod.values.values().stream().allMatch(value -> value == 0));
            double busy = podless.getOrDefault(Reading.GPU_UTILIZATION, 0.0);
            double usedBytes = podless.getOrDefault(Reading.MEMORY_USED_BYTES, 0.0);
            if (!podsUsedNothing || busy == 0 && usedBytes < IN_USE_BYTES) {
                return false;
            }
            if (saidUnmapped.add(key)) {
                errors.add("dcgm-exporter: every one of the " + pods.size() + " pods of " + key + " reads 0 while the"
                        + " GPU is " + Math.round(busy * 100) + "% busy and holds " + Math.round(usedBytes / MIB)
                        + " MiB: no process of a pod is on it, or the exporter maps none to its pod (it needs the"
                        + " host's process table, hostPID); not used to split it");
            }
            return true;
        }

        private double max(Reading reading) {
            return pods.values().stream().map(p -> p.values.get(reading)).filter(v -> v != null)
                    .mapToDouble(Double::doubleValue).max().orElse(0);
        }

        /** Used, free and reserved memory; null without the free memory on the page. */
        private Double memoryTotalBytes() {
            Double used = values.get(Reading.MEMORY_USED_BYTES);
            Double free = memoryNotUsedMiB.get("DCGM_FI_DEV_FB_FREE");
            if (used == null || free == null) {
                return null;
            }
            return used + (free + memoryNotUsedMiB.getOrDefault("DCGM_FI_DEV_FB_RESERVED", 0.0)) * 1024 * 1024;
        }
    }
}
