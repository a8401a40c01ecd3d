package io.gpuledger.ingest.agent.owners;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * When a source the sampling rounds read (the kubelet's pods, the API server's claims) is asked again, and on which
 * thread: at most once per {@code atMostEvery}, never twice at once; the first time in the round that asks (it has
 * nothing else to go by; an {@code --once} round has no other), after that on a thread of its own while the rounds
 * go on with what was last known, so that a source that is slow or away never holds a round up.
 */
final class Refreshes {

    private final Duration atMostEvery;
    private final Clock clock;
    private final Executor background;
    private final Runnable refresh;
    private Instant lastAsked = Instant.MIN;
    /** Whether a refresh was handed to {@link #background} and has not finished. */
    private boolean running;

    /**
     * @param refresh    asks the source and keeps what it says; when it returns (or throws) the next may be asked
     * @param background runs the refreshes after the first
     */
    Refreshes(Duration atMostEvery, Clock clock, Executor background, Runnable refresh) {
        this.atMostEvery = atMostEvery;
        this.clock = clock;
        this.background = background;
        this.refresh = refresh;
    }

    /** Asks the source again if that is due: waits for it the first time only. */
    void askIfDue() {
        boolean first;
        synchronized (this) {
            first = lastAsked.equals(Instant.MIN);
            if (!takeIfDue()) {
                return;
            }
        }
        if (first) {
            runAndFinish();
            return;
        }
        try {
            background.execute(this::runAndFinish);
        } catch (RejectedExecutionException e) {
            finished();
        }
    }

    /**
     * Asks the source again if that is due, on the calling thread, and waits for it: for a caller on a thread of its
     * own already (another source's refresh), which wants what the source says now, not at its next turn.
     */
    void runIfDue() {
        if (takeIfDue()) {
            runAndFinish();
        }
    }

    /** Whether a refresh is due, none running and the last far enough back; if so, it is this caller's to run. */
    private synchronized boolean takeIfDue() {
        Instant now = clock.instant();
        if (running || now.isBefore(lastAsked.plus(atMostEvery))) {
            return false;
        }
        lastAsked = now;
        running = true;
        return true;
    }

    private void runAndFinish() {
        try {
            refresh.run();
        } finally {
            finished();
        }
    }

    private synchronized void finished() {
        running = false;
    }

    /** One daemon thread named {@code name}, started for a refresh and let go a minute after: nothing to close. */
    static Executor backgroundThread(String name) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                task -> {
                    Thread thread = new Thread(task, name);
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
