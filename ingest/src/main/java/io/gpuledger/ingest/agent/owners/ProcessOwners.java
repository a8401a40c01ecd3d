package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.usage.Owner;
import java.util.List;
import java.util.Optional;

/** Tells which job a process of the node works for; a process it cannot tell is no one's, never guessed. */
public interface ProcessOwners {

    Optional<Owner> ownerOf(int pid);

    /** The owner of a process seen on this GPU; most ways of telling need only the process. */
    default Optional<Owner> ownerOf(int pid, String gpu) {
        return ownerOf(pid);
    }

    /** What went wrong since the last call (a kubelet that did not answer), once each; empty by default. */
    default List<String> drainErrors() {
        return List.of();
    }

    /** The first that can tell, in this order. */
    static ProcessOwners firstOf(List<ProcessOwners> owners) {
        return new ProcessOwners() {
            @Override
            public Optional<Owner> ownerOf(int pid) {
                return ownerOf(pid, null);
            }

            @Override
            public Optional<Owner> ownerOf(int pid, String gpu) {
                for (ProcessOwners candidate : owners) {
                    Optional<Owner> owner = gpu == null ? candidate.ownerOf(pid) : candidate.ownerOf(pid, gpu);
                    if (owner.isPresent()) {
                        return owner;
                    }
                }
                return Optional.empty();
            }

            @Override
            public List<String> drainErrors() {
                return owners.stream().flatMap(o -> o.drainErrors().stream()).toList();
            }
        };
    }
}
