package io.gpuledger.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.http.BoundedHttpServer.BodyTooLarge;
import io.gpuledger.http.BoundedHttpServer.Limits;
import io.gpuledger.http.BoundedHttpServer.Refusal;
import io.gpuledger.http.BoundedHttpServer.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server's bounds as a client meets them, on raw sockets to 127.0.0.1 and with the agent's
 * limits. Times are asserted in seconds only, with room for a busy machine.
 */
class BoundedHttpServerTest {

    /** The agent's: four threads, 16 waiting, 5 s idle, 10 s a request, 8 KiB of headers, 64 KiB of body. */
    private static final Limits LIMITS = new Limits(4, 16, Duration.ofSeconds(5), Duration.ofSeconds(10), 8 * 1024,
            64 * 1024);

    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
    private BoundedHttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = new BoundedHttpServer("test-http", "127.0.0.1", 0, LIMITS, request -> switch (request.path()) {
            case "/body" -> {
                try {
                    yield Response.of(200, "text/plain", ("read " + request.body().length).getBytes(
                            StandardCharsets.US_ASCII));
                } catch (BodyTooLarge e) {
                    yield Response.of(413, "text/plain", new byte[0]);
                }
            }
            case "/block" -> {
                await(release);
                yield Response.of(200, "text/plain", new byte[0]);
            }
            default -> Response.of(200, "text/plain", "up".getBytes(StandardCharsets.US_ASCII));
        }, refusals::add, problem -> { });
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.close();
    }

    @Test
    void shouldAnswerAFastRequestWhileMoreClientsThanThreadsStallInTheirHeads() throws Exception {
        // Given five connections, one more than the threads, each sending part of a head and then nothing
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < LIMITS.threads() + 1; i++) {
                Socket socket = connect();
                socket.getOutputStream().write(ascii("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"));
                slow.add(socket);
            }
            Thread.sleep(300);

            // When a complete request comes after them
            long start = System.nanoTime();
            String fast = exchange(ascii("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
            long fastMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            // Then it is answered well before a stalled client's idle limit could free a thread
            assertThat(fast).startsWith("HTTP/1.1 200 ").endsWith("up");
            assertThat(fastMillis).isLessThan(LIMITS.idleRead().toMillis() / 2);
            // And each stalled one is answered 408 once idle, well within its deadline
            for (Socket socket : slow) {
                socket.setSoTimeout((int) LIMITS.requestDeadline().toMillis() + 2_000);
                assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 408 ").contains("paused");
            }
            assertThat(refusals).containsOnly(Refusal.TIMEOUT).hasSize(slow.size());
        } finally {
            for (Socket socket : slow) {
                socket.close();
            }
        }
    }

    @Test
    void shouldReadAHeadSentInPiecesAndABodyWhoseStartCameWithIt() throws Exception {
        // Given a head split inside its final CRLF CRLF, and a body half sent with the head
        try (Socket socket = connect()) {
            socket.getOutputStream().write(ascii("\r\nPOST /body HTTP/1.1\r\nContent-Length: 10\r"));
            Thread.sleep(100);
            socket.getOutputStream().write(ascii("\n\r"));
            Thread.sleep(100);
            socket.getOutputStream().write(ascii("\n01234"));
            Thread.sleep(100);
            // When the rest of the body follows
            socket.getOutputStream().write(ascii("56789"));

            // Then the route reads the whole body
            assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("read 10");
        }
    }

    @Test
    void shouldReadAChunkedBody() throws Exception {
        String answer = exchange(ascii("POST /body HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"));

        assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("read 7");
    }

    @Test
    void shouldRefuseHeadersOverTheCapWith431() throws Exception {
        String answer = exchange(ascii("GET /metrics HTTP/1.1\r\nX-Padding: " + "a".repeat(16 * 1024) + "\r\n\r\n"));

        assertThat(answer).startsWith("HTTP/1.1 431 ");
        assertThat(refusals).containsExactly(Refusal.MALFORMED);
    }

    @Test
    void shouldRefuseAMalformedRequestLineWith400() throws Exception {
        assertThat(exchange(ascii("GET /metrics\r\n\r\n"))).startsWith("HTTP/1.1 400 ")
                .contains("malformed request line");
        assertThat(exchange(ascii("GET /metrics HTTP/2.0\r\n\r\n"))).startsWith("HTTP/1.1 505 ");
    }

    @Test
    void shouldRefuseABodyOverTheCapWith413() throws Exception {
        String answer = exchange(ascii("POST /body HTTP/1.1\r\nContent-Length: " + (1024 * 1024) + "\r\n\r\n"));

        assertThat(answer).startsWith("HTTP/1.1 413 ");
    }

    @Test
    void shouldAnswer503WhenEveryThreadIsBusyAndTheQueueFull() throws Exception {
        // Given four requests held in their route and sixteen waiting for a thread
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < LIMITS.threads() + LIMITS.queueCapacity(); i++) {
                Socket socket = connect();
                socket.getOutputStream().write(ascii("GET /block HTTP/1.1\r\n\r\n"));
                held.add(socket);
                Thread.sleep(20);
            }
            Thread.sleep(300);

            // When one more comes
            String answer = exchange(ascii("GET /metrics HTTP/1.1\r\n\r\n"));

            // Then it is refused at once, and the held ones are served once released
            assertThat(answer).startsWith("HTTP/1.1 503 ");
            assertThat(refusals).containsExactly(Refusal.BUSY);
            release.countDown();
            for (Socket socket : held) {
                assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ");
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void shouldAnswer503WhenTooManyHeadsAreBeingRead() throws Exception {
        // Given as many connections as the server reads heads of at once, none sending a byte
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < HeadReader.MAX_READING; i++) {
                silent.add(connect());
            }
            Thread.sleep(300);

            // When one more connects
            try (Socket socket = connect()) {
                // Then it is refused at once, with no thread taken
                assertThat(readAll(socket.getInputStream())).startsWith("HTTP/1.1 503 ");
            }
            assertThat(refusals).containsExactly(Refusal.BUSY);
        } finally {
            for (Socket socket : silent) {
                socket.close();
            }
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(15_000);
        return socket;
    }

    /** Sends a request on a connection of its own and reads the answer to the connection's end. */
    private String exchange(byte[] request) throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(request);
            return readAll(socket.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                read.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // A reset after the answer: what came before it is the answer.
        }
        return read.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
