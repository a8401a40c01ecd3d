package io.gpuledger.alerts.recommend;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the fleet itself shows of how fast each GPU model runs a workload: the units per GPU-hour
 * of the jobs that name that workload, by the model of their GPUs. Two models' medians make a
 * measured relative throughput, which beats any published figure for that workload: it includes
 * the workload's own mix of arithmetic, memory traffic and communication.
 *
 * <p>Built once per snapshot of the peers ({@link JobBook#peers}); safe for concurrent reading once built.
 */
final class MeasuredThroughput {

    /** What must match for two jobs' throughputs to be compared: the same work counted in the same unit. */
    private record Workload(String unit, String workload) {
    }

    /** Units per GPU-hour of each job (by id) of a workload on one GPU model. */
    private final Map<Workload, Map<String, Map<String, Double>>> byWorkload;

    private MeasuredThroughput(Map<Workload, Map<String, Map<String, Double>>> byWorkload) {
        this.byWorkload = byWorkload;
    }

    /** The throughputs of the {@code peers} that report work, name a workload and a GPU model. */
    static MeasuredThroughput of(Collection<JobView> peers) {
        Map<Workload, Map<String, Map<String, Double>>> byWorkload = new HashMap<>();
        for (JobView peer : peers) {
            if (!peer.reportsThroughput() || peer.workload() == null || peer.gpuModel() == null) {
                continue;
            }
            byWorkload.computeIfAbsent(new Workload(peer.unit(), peer.workload()), key -> new HashMap<>())
                    .computeIfAbsent(modelKey(peer.gpuModel()), key -> new HashMap<>())
                    .put(peer.jobId(), peer.unitsPerGpuHour());
        }
        return new MeasuredThroughput(byWorkload);
    }

    /**
     * A relative throughput measured on the fleet.
     *
     * @param ratio          units per GPU-hour of the workload on the candidate's model over those on the
     *                       job's model (the medians of the jobs on each)
     * @param candidateJobs  how many jobs ran it on the candidate's model
     * @param currentJobs    how many ran it on the job's model, the job included
     */
    record Ratio(double ratio, int candidateJobs, int currentJobs) {
    }

    /**
     * How much faster (above 1) or slower the {@code job}'s workload runs on {@code candidateModel}
     * than on its own GPUs, as other jobs of the same workload and unit show; empty when the job names
     * no workload or GPU model, or no other job ran its workload on the candidate's model. The job's
     * own current figure stands for it on its model, whatever its picture among the peers says.
     */
    Optional<Ratio> ratio(JobView job, String candidateModel) {
        if (!job.reportsThroughput() || job.workload() == null || job.gpuModel() == null || candidateModel == null) {
            return Optional.empty();
        }
        String current = modelKey(job.gpuModel());
        String candidate = modelKey(candidateModel);
        if (current.equals(candidate)) {
            return Optional.empty();
        }
        Map<String, Map<String, Double>> byModel = byWorkload.getOrDefault(new Workload(job.unit(), job.workload()),
                Map.of());
        List<Double> onCandidate = others(byModel.get(candidate), job.jobId());
        if (onCandidate.isEmpty()) {
            return Optional.empty();
        }
        List<Double> onCurrent = others(byModel.get(current), job.jobId());
        onCurrent.add(job.unitsPerGpuHour());
        return Optional.of(new Ratio(median(onCandidate) / median(onCurrent), onCandidate.size(), onCurrent.size()));
    }

    private static List<Double> others(Map<String, Double> jobs, String jobId) {
        List<Double> values = new ArrayList<>();
        if (jobs != null) {
            jobs.forEach((id, value) -> {
                if (!id.equals(jobId)) {
                    values.add(value);
                }
            });
        }
        return values;
    }

    /** The middle value, or the mean of the middle two: one odd job does not set the ratio. */
    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static String modelKey(String model) {
        return model.toLowerCase(Locale.ROOT);
    }
}
