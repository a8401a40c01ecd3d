package io.gpuledger.alerts;

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

    /** Closes what {@link #open} opened; called once, in the reverse order of opening. */
    void close();

    /** What a stage answers before it is open: on a standby replica, or while the active one is starting. */
    final class NotStartedException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        public NotStartedException() {
            super("the alert service has not started yet");
        }
    }
}
