package io.gpuledger.http;

import io.gpuledger.http.BoundedHttpServer.Limits;
import io.gpuledger.http.BoundedHttpServer.Malformed;
import io.gpuledger.http.BoundedHttpServer.Refusal;
import io.gpuledger.http.BoundedHttpServer.Response;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One thread that accepts every connection and reads each request's line and headers without
 * blocking, so that a client trickling its head holds a few bytes of memory rather than one of the
 * server's handler threads. It holds the bounds of a head: the deadline from the accept, the idle
 * limit and the size cap, answering 408 or 431 itself. A complete head goes to the handler pool
 * ({@link Handoff}), where the body is read and the route runs, blocking.
 */
final class HeadReader implements Runnable {

    /** Takes a connection whose head is read; false when every thread is busy and the queue is full. */
    @FunctionalInterface
    interface Handoff {
        boolean take(SocketChannel connection, RequestHead head, long deadlineNanos);
    }

    /**
     * Connections whose heads may be read at once; one more is answered 503. Far more than an
     * agent's or an engine's few clients, and with 8 KiB heads at most 1 MiB of buffers.
     */
    static final int MAX_READING = 128;
    /** What a head's buffer starts with: a scrape's or a report's head fits, a larger one grows it. */
    private static final int FIRST_BUFFER_BYTES = 512;
    private static final long LINGER_NANOS = BoundedHttpServer.LINGER.toNanos();

    private final String name;
    private final Limits limits;
    private final Handoff handoff;
    private final Consumer<Refusal> refused;
    private final Consumer<String> problems;
    private final Selector selector;
    private final ServerSocketChannel listener;
    /** Where drained bytes go: only this thread reads into it. */
    private final ByteBuffer discard = ByteBuffer.allocate(4096);
    private volatile boolean closed;

    /** A connection this thread holds: its head being read, or, once answered here, drained before its close. */
    private static final class Pending {
        final SocketChannel channel;
        final long deadline;
        ByteBuffer head;
        long lastRead;
        /** Where the search for the head's end starts again: the bytes before hold no end. */
        int searched;
        /** When the drain of a connection answered here ends; 0 while its head is read. */
        long drainUntil;

        Pending(SocketChannel channel, long now, long deadline, int firstBytes) {
            this.channel = channel;
            this.head = ByteBuffer.allocate(firstBytes);
            this.lastRead = now;
            this.deadline = deadline;
        }
    }

    HeadReader(String name, String host, int port, Limits limits, Handoff handoff, Consumer<Refusal> refused,
            Consumer<String> problems) throws IOException {
        this.name = name;
        this.limits = limits;
        this.handoff = handoff;
        this.refused = refused;
        this.problems = problems;
        selector = Selector.open();
        listener = ServerSocketChannel.open();
        try {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(new InetSocketAddress(InetAddress.getByName(host), port), 64);
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            listener.close();
            selector.close();
            throw e;
        }
    }

    int port() {
        return listener.socket().getLocalPort();
    }

    @Override
    public void run() {
        List<Pending> complete = new ArrayList<>();
        long wait = 0;
        while (!closed) {
            try {
                selector.select(wait);
                Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else if (key.isReadable()) {
                        read(key, complete);
                    }
                }
                handOff(complete);
                wait = expire();
            } catch (IOException | RuntimeException e) {
                // Never the end of the thread: without it the endpoint would accept nothing more.
                if (!closed) {
                    problems.accept(name + ": " + e);
                    pause();
                }
            }
        }
        for (SelectionKey key : selector.keys()) {
            close(key.channel());
        }
        close(selector);
    }

    private void accept() throws IOException {
        for (SocketChannel channel = listener.accept(); channel != null; channel = listener.accept()) {
            // The request's deadline runs from here: time in the queue for a thread counts too.
            long now = System.nanoTime();
            Pending pending = new Pending(channel, now, now + limits.requestDeadline().toNanos(),
                    Math.min(FIRST_BUFFER_BYTES, limits.maxHeaderBytes()));
            try {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                if (selector.keys().size() > MAX_READING) {
                    refused.accept(Refusal.BUSY);
                    answer(pending, BoundedHttpServer.error(503, "busy: too many requests being read"), now);
                    close(channel);
                } else {
                    channel.register(selector, SelectionKey.OP_READ, pending);
                }
            } catch (IOException e) {
                close(channel);
            }
        }
    }

    private void read(SelectionKey key, List<Pending> complete) {
        Pending pending = (Pending) key.attachment();
        long now = System.nanoTime();
        try {
            if (pending.drainUntil != 0) {
                discard.clear();
                if (pending.channel.read(discard) < 0) {
                    close(pending.channel);
                }
                return;
            }
            if (!pending.head.hasRemaining()) {
                pending.head = grown(pending.head);
            }
            if (pending.channel.read(pending.head) < 0) {
                // The client went away inside its head: nobody to answer.
                close(pending.channel);
                return;
            }
            pending.lastRead = now;
            byte[] bytes = pending.head.array();
            int to = pending.head.position();
            int from = RequestHead.leadingEmptyLines(bytes, to);
            int end = RequestHead.end(bytes, Math.max(from, pending.searched), to);
            if (end >= 0) {
                key.cancel();
                complete.add(pending);
            } else if (to >= limits.maxHeaderBytes()) {
                refuse(pending, Refusal.MALFORMED, 431, "headers larger than " + limits.maxHeaderBytes() + " bytes");
            } else {
                // A line's end may be split across reads: look again from two bytes back.
                pending.searched = Math.max(from, to - 2);
            }
        } catch (IOException e) {
            close(pending.channel);
        }
    }

    /** Twice as large, at most the header cap: the bytes past a head of that size are not read here. */
    private ByteBuffer grown(ByteBuffer head) {
        ByteBuffer larger = ByteBuffer.allocate(Math.min(2 * head.capacity(), limits.maxHeaderBytes()));
        head.flip();
        return larger.put(head);
    }

    /**
     * Each complete head parsed and given to the pool. Its channel is out of the selector by now
     * ({@code selectNow} ends the registrations cancelled above), so a handler thread may block on it.
     */
    private void handOff(List<Pending> complete) throws IOException {
        if (complete.isEmpty()) {
            return;
        }
        selector.selectNow();
        for (Pending pending : complete) {
            byte[] bytes = pending.head.array();
            int to = pending.head.position();
            int from = RequestHead.leadingEmptyLines(bytes, to);
            try {
                RequestHead head = RequestHead.parse(bytes, from, RequestHead.end(bytes, from, to), to);
                pending.channel.configureBlocking(true);
                if (!handoff.take(pending.channel, head, pending.deadline)) {
                    pending.channel.configureBlocking(false);
                    refuse(pending, Refusal.BUSY, 503,
                            "busy: every thread of this endpoint is serving another request");
                }
            } catch (Malformed e) {
                refuse(pending, Refusal.MALFORMED, e.status, e.getMessage());
            } catch (IOException e) {
                close(pending.channel);
            }
        }
        complete.clear();
    }

    /**
     * Answers and closes each connection past its deadline, its idle limit or its drain; says how
     * long the selector may wait for the next such moment (0: until something happens).
     */
    private long expire() {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        for (SelectionKey key : selector.keys()) {
            if (!(key.attachment() instanceof Pending pending) || !key.isValid()) {
                continue;
            }
            if (pending.drainUntil != 0) {
                if (now - pending.drainUntil >= 0) {
                    close(pending.channel);
                    continue;
                }
                next = Math.min(next, pending.drainUntil - now);
                continue;
            }
            long idleEnd = pending.lastRead + limits.idleRead().toNanos();
            if (now - pending.deadline >= 0) {
                refuse(pending, Refusal.TIMEOUT, 408, "the request did not arrive within its deadline");
            } else if (now - idleEnd >= 0) {
                refuse(pending, Refusal.TIMEOUT, 408, "the request paused longer than "
                        + limits.idleRead().toMillis() + " ms");
            } else {
                next = Math.min(next, Math.min(pending.deadline, idleEnd) - now);
                continue;
            }
            next = Math.min(next, LINGER_NANOS);
        }
        return next == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(next) + 1);
    }

    /** Answers from this thread and drains the connection for a moment before its close. */
    private void refuse(Pending pending, Refusal refusal, int status, String message) {
        refused.accept(refusal);
        long now = System.nanoTime();
        try {
            answer(pending, BoundedHttpServer.error(status, message), now);
            pending.channel.register(selector, SelectionKey.OP_READ, pending);
        } catch (IOException e) {
            close(pending.channel);
        }
    }

    /**
     * Writes the answer without blocking: a short answer fits the empty send buffer of a connection
     * that was sent nothing before; whatever does not fit is dropped with the connection.
     */
    private static void answer(Pending pending, Response response, long now) throws IOException {
        pending.channel.write(ByteBuffer.wrap(BoundedHttpServer.encoded(response)));
        pending.channel.shutdownOutput();
        pending.drainUntil = now + LINGER_NANOS;
        pending.head = null;
    }

    /** After a failed accept (out of file descriptors, say): not a busy loop of the same failure. */
    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void close(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // Closed either way.
        }
    }

    /** Stops accepting and reading; the connections it holds are closed as its thread ends. */
    void close() {
        closed = true;
        selector.wakeup();
    }
}
