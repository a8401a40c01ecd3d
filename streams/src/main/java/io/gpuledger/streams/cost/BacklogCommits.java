package io.gpuledger.streams.cost;

/**
 * Tells the GPU windows, at an update while they work off a backlog, whether to ask for a commit.
 *
 * <p>Each commit writes every GPU changed since the last one to the changelog, whole, and every roll-up
 * minute a partial changed, and sends the partials pending (each a record to the roll-ups). A thread
 * catching up on a large fleet covers only a sample or two of each GPU between two updates, so
 * committing at every update would write a GPU's state for nearly every sample. It asks for a
 * commit once the samples since the last commit are at least {@link #SAMPLES_PER_WRITE} for each
 * GPU that commit will write, once no sample came since the update before (the backlog is done,
 * and the engine's output waits for nothing else), or once a given number of updates passed
 * without a commit (so that the partials held back until a commit do go out, before Kafka Streams'
 * timer commits at the engine's longest commit interval). A fleet of a few dozen GPUs reaches the
 * share within an update; a large one commits after the given updates. Of 16, 64 and 256 samples a
 * GPU, 256 let the engine catch up fastest (docs/benchmarks.md).
 */
final class BacklogCommits {

    /** How many samples, at the least, share a GPU's write before a commit is asked for. */
    static final int SAMPLES_PER_WRITE = 256;

    private final int maxUpdates;
    /** The commit of the GPU store the counts are for (see {@code LiveStore.commits}). */
    private long commit = Long.MIN_VALUE;
    private long samples;
    private long samplesAtUpdate;
    private int updates;

    /** Asks for a commit at the latest at the {@code maxUpdates}th update since the last commit. */
    BacklogCommits(int maxUpdates) {
        if (maxUpdates < 1) {
            throw new IllegalArgumentException("a commit is asked for after at least one update, not " + maxUpdates);
        }
        this.maxUpdates = maxUpdates;
    }

    /** A sample was added while the GPU store stood at {@code storeCommits}. */
    void sample(long storeCommits) {
        countFor(storeCommits);
        samples++;
    }

    /**
     * At an update: whether to ask for a commit, the GPU store standing at {@code storeCommits}
     * with {@code gpusToWrite} GPUs changed since it last wrote.
     */
    boolean dueAtUpdate(long storeCommits, int gpusToWrite) {
        countFor(storeCommits);
        boolean cameSinceUpdate = samples > samplesAtUpdate;
        samplesAtUpdate = samples;
        updates++;
        return !cameSinceUpdate || updates >= maxUpdates || samples >= (long) SAMPLES_PER_WRITE * gpusToWrite;
    }

    private void countFor(long storeCommits) {
        if (storeCommits != commit) {
            commit = storeCommits;
            samples = 0;
            samplesAtUpdate = 0;
            updates = 0;
        }
    }
}
