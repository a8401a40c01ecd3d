// Kafka Streams 4.1 internal API, used in this file only: no public one lets a processor send as its task commits.
package io.gpuledger.streams.state;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;

/**
 * Lets a processor send records as its task commits, from {@link LiveStore#beforeEachWrite}: what it sends
 * there goes out in the commit's transaction, with the input offsets it commits. Kafka Streams forwards
 * only from a processor's {@code process} or punctuation, where it knows which node sends and what the
 * output's record context is; at a commit it knows neither, so this sets both as a punctuation does (the
 * processor's own node, the wall-clock time, no input offset) and puts back what was there. Should Kafka
 * Streams stop allowing it, {@code LiveStoreOnBrokerIT} fails.
 */
public final class CommitSends {

    private CommitSends() {
    }

    /**
     * {@code send} run as the processor whose {@code context} this is: called from the processor's
     * {@code init}, while Kafka Streams has its node as the current one.
     */
    public static Runnable inScopeOf(ProcessorContext<?, ?> context, Runnable send) {
        InternalProcessorContext<?, ?> internal = (InternalProcessorContext<?, ?>) context;
        ProcessorNode<?, ?, ?, ?> node = internal.currentNode();
        if (node == null) {
            throw new IllegalStateException("a processor's sends at commit are set up in its init");
        }
        return () -> {
            ProcessorNode<?, ?, ?, ?> previousNode = internal.currentNode();
            ProcessorRecordContext previousRecord = internal.recordContext();
            internal.setCurrentNode(node);
            internal.setRecordContext(new ProcessorRecordContext(internal.currentSystemTimeMs(), -1, -1, null,
                    new RecordHeaders()));
            try {
                send.run();
            } finally {
                internal.setRecordContext(previousRecord);
                internal.setCurrentNode(previousNode);
            }
        };
    }
}
