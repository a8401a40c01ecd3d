package io.gpuledger.streams.deadletter;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The engine's {@code processing.exception.handler} and {@code production.exception.handler}: an input
 * record that a processor fails on unexpectedly, or whose output cannot be serialized or is refused by the
 * broker, is kept on its input's dead-letter topic ({@link DeadLetterSink}), and the engine goes on with the
 * next. Left to Kafka Streams, the stream thread would die, be replaced, and meet the same record again,
 * forever.
 *
 * <ul>
 *   <li>A punctuation that fails has no record to keep: it is logged and counted, and runs again at its
 *       next time.</li>
 *   <li>A send error that may pass (a broker not reachable for a while) is retried, as Kafka Streams does by
 *       default: the record is not at fault. Under exactly-once, a send the broker refused leaves the
 *       transaction to be aborted whatever this answers, and the task is processed again from its last
 *       commit; a serialization error is caught before the send, and is passed over for good.</li>
 *   <li>Without a {@link DeadLetterSink} among the settings, or when the dead letter cannot be written, the
 *       record fails the thread as it would without this handler: nothing is passed over unkept.</li>
 * </ul>
 */
public final class DeadLetterHandler implements ProcessingExceptionHandler, ProductionExceptionHandler {

    private DeadLetterSink sink;

    @Override
    public void configure(Map<String, ?> configs) {
        sink = DeadLetterSink.among(configs);
    }

    @Override
    public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception error) {
        return DeadLetterSink.keptBy(sink, context, error, DeadLetterSink.PROCESSING)
                ? ProcessingHandlerResponse.CONTINUE : ProcessingHandlerResponse.FAIL;
    }

    @Override
    public ProductionExceptionHandlerResponse handle(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
            Exception error) {
        if (error instanceof RetriableException) {
            return ProductionExceptionHandlerResponse.RETRY;
        }
        return keptOnProduction(context, error);
    }

    @Override
    @SuppressWarnings("rawtypes") // as Kafka Streams declares it
    public ProductionExceptionHandlerResponse handleSerializationException(ErrorHandlerContext context,
            ProducerRecord record, Exception error, SerializationExceptionOrigin origin) {
        return keptOnProduction(context, error);
    }

    private ProductionExceptionHandlerResponse keptOnProduction(ErrorHandlerContext context, Exception error) {
        return DeadLetterSink.keptBy(sink, context, error, DeadLetterSink.PRODUCTION)
                ? ProductionExceptionHandlerResponse.CONTINUE : ProductionExceptionHandlerResponse.FAIL;
    }
}
