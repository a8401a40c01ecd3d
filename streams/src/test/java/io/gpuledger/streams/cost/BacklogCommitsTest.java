package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BacklogCommitsTest {

    private static final int GPUS = 100_000;

    @Test
    void shouldAskForACommitOnceFourSamplesShareEachGpusWrite() {
        BacklogCommits commits = new BacklogCommits(10);
        long store = 7;

        samples(commits, store, 2 * GPUS);
        assertThat(commits.dueAtUpdate(store, GPUS)).as("two samples a GPU").isFalse();
        samples(commits, store, 2 * GPUS - 1);
        assertThat(commits.dueAtUpdate(store, GPUS)).as("one sample short of four a GPU").isFalse();
        samples(commits, store, 1);
        assertThat(commits.dueAtUpdate(store, GPUS)).as("four a GPU").isTrue();
    }

    @Test
    void shouldAskAtEveryUpdateWhereAFewGpusHaveManySamplesEach() {
        BacklogCommits commits = new BacklogCommits(10);
        for (long store = 1; store <= 3; store++) {
            samples(commits, store, 300_000);
            assertThat(commits.dueAtUpdate(store, 10_000)).isTrue();
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
