package io.gpuledger.cli;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands where its owner sets it: simulated time for code that reads a {@link Clock}. */
final class SimulatedClock extends Clock {

    private volatile Instant now;

    SimulatedClock(Instant now) {
        this.now = now;
    }

    void set(Instant instant) {
        now = instant;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
