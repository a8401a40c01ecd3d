package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BacklogCommitsTest {

    private static final int GPUS = 100_000;

    @Test
    void shouldAskForACommitOnce256SamplesShareEachGpusWrite() {
        BacklogCommits commits = new BacklogCommits(10);
        long store = 7;
        int gpus = 1_000;

        samples(commits, store, 128 * gpus);
        assertThat(commits.dueAtUpdate(store, gpus)).as("128 samples a GPU").isFalse();
        samples(commits, store, 128 * gpus - 1);
        assertThat(commits.dueAtUpdate(store, gpus)).as("one sample short of 256 a GPU").isFalse();
        samples(commits, store, 1);
        assertThat(commits.dueAtUpdate(store, gpus)).as("256 a GPU").isTrue();
    }

    @Test
    void shouldAskAtEveryUpdateWhereAFewGpusHaveManySamplesEach() {
        BacklogCommits commits = new BacklogCommits(10);
        for (long store = 1; store <= 3; store++) {
            samples(commits, store, 300_000);
            assertThat(commits.dueAtUpdate(store, 1_000)).isTrue();
        }
    }

    @Test
    void shouldCountAgainAfterACommitItDidNotAskFor() {
        BacklogCommits commits = new BacklogCommits(10);
        samples(commits, 1, 3 * GPUS);
        assertThat(commits.dueAtUpdate(1, GPUS)).isFalse();

        // Kafka Streams commits at its interval: the samples before it were written with it
        samples(commits, 2, 2 * GPUS);

        assertThat(commits.dueAtUpdate(2, GPUS)).isFalse();
    }

    @Test
    void shouldAskOnceNoSampleCameSinceTheUpdateBefore() {
        BacklogCommits commits = new BacklogCommits(10);
        samples(commits, 1, GPUS);
        assertThat(commits.dueAtUpdate(1, GPUS)).isFalse();

        assertThat(commits.dueAtUpdate(1, GPUS)).as("the backlog is worked off").isTrue();
    }

    @Test
    void shouldAskAtTheLatestAfterItsUpdatesWhateverTheShare() {
        BacklogCommits commits = new BacklogCommits(3);
        for (int update = 1; update < 3; update++) {
            samples(commits, 1, GPUS / 2);
            assertThat(commits.dueAtUpdate(1, GPUS)).as("update " + update).isFalse();
        }
        samples(commits, 1, GPUS / 2);
        assertThat(commits.dueAtUpdate(1, GPUS)).isTrue();

        assertThatThrownBy(() -> new BacklogCommits(0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void samples(BacklogCommits commits, long store, int count) {
        for (int i = 0; i < count; i++) {
            commits.sample(store);
        }
    }
}
