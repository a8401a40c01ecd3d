package io.gpuledger.ingest.sim;

/**
 * What a job did in one interval, the same on each of its nodes: data-parallel ranks step in
 * lockstep, and inference replicas share their job's load.
 *
 * @param steps          steps (or batches) completed in the interval
 * @param secondsPerStep wall time of each of them in this interval
 * @param load           share of full load (1 for training)
 */
record JobRound(long steps, double secondsPerStep, double load) {

    double stepSeconds() {
        return steps * secondsPerStep;
    }
}
