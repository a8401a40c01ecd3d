package io.gpuledger.ingest.agent.share;

import java.util.HashSet;
import java.util.Set;

/**
 * Keys of problems said once each, however many rounds see them: past {@value #AT_MOST} keys all are forgotten, and
 * said again when they come back, so that what it holds stays small whatever comes. Not for two threads at once.
 */
public final class SaidOnceEach {

    private static final int AT_MOST = 1024;

    private final Set<String> said = new HashSet<>();

    /** Whether {@code key} is to be said now: the first time it comes (since it was last forgotten). */
    public boolean firstTime(String key) {
        if (said.size() >= AT_MOST) {
            said.clear();
        }
        return said.add(key);
    }
}
