package io.gpuledger.alerts;

import java.time.Instant;

/**
 * A part of the alert service that is a bean of its own. Building it is cheap and opens nothing, so that a
 * standby replica may be asked for it (a REST call, a health check) without reading or publishing anything;
 * {@link AlertService} opens the stages in a fixed order once this replica is the active one. Until then every
 * use of a stage answers {@link NotStartedException}.
 */
public interface Stage {

    /** Reads back what the stage needs and opens its clients; called once, by {@link AlertService}. */
    void open();

    boolean isOpen();

    /**
     * Closes what {@link #open} opened; called once, in the reverse order of opening, and also after an
     * {@code open} that failed halfway: it closes what was made, and skips what was not.
     */
    void close();

    /** Forgets what was not heard of lately; every 30 s, once open. */
    default void sweep(Instant now) {
    }

    /** {@code part} of a stage, once the stage has built it; before, {@link NotStartedException}. */
    static <T> T opened(T part) {
        if (part == null) {
            throw new NotStartedException();
        }
        return part;
    }

    /** What a stage answers before it is open: on a standby replica, or while the active one is starting. */
    final class NotStartedException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        public NotStartedException() {
            super("the alert service has not started yet");
        }
    }
}
