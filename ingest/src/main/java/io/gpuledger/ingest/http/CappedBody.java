package io.gpuledger.ingest.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * Collects a response's body and gives up, cancelling the transfer, as soon as it outgrows a cap: a peer that
 * sends without end is refused before the body fills the heap.
 */
public final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {

    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final long maxBytes;
    /** The failure a body past the cap ends with, told how much was sent ("more than N bytes sent"). */
    private final Function<String, Throwable> tooLarge;
    private Flow.Subscription subscription;

    /**
     * @param tooLarge the failure of a body past {@code maxBytes}, given what was sent
     */
    public CappedBody(long maxBytes, Function<String, Throwable> tooLarge) {
        this.maxBytes = maxBytes;
        this.tooLarge = tooLarge;
    }

    /** A body refused before it is read (its declared length is past the cap): it ends with {@code refused}. */
    public static CappedBody refused(Throwable refused) {
        CappedBody body = new CappedBody(0, sent -> refused);
        body.body.completeExceptionally(refused);
        return body;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (body.isDone()) {
            subscription.cancel();
        } else {
            subscription.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            if (bytes.size() + (long) buffer.remaining() > maxBytes) {
                subscription.cancel();
                body.completeExceptionally(tooLarge.apply("more than " + maxBytes + " bytes sent"));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.writeBytes(chunk);
        }
    }

    @Override
    public void onError(Throwable throwable) {
        body.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toByteArray());
    }
}
