package io.gpuledger.ingest.agent.cloud;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.Placement;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** One cloud's instance metadata service: who this instance is, and what notices are up for it. */
public interface CloudMetadata {

    String provider();

    /** The instance's identity; empty when the service does not answer (not this cloud). */
    Optional<CloudIdentity> identity();

    /**
     * The notices up now for the instance at {@code placement}. A notice stays up for as long as the
     * cloud serves it, so the same notice comes back on every poll with the same event id.
     *
     * @throws IOException when the metadata service cannot be asked (counted, retried next poll)
     */
    List<CapacityEvent> notices(Placement placement, Instant now) throws IOException;
}
