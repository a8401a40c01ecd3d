package io.gpuledger.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Against a server on 127.0.0.1 written here byte by byte: one that answers, one that stalls in the middle of its
 * body (the JDK client's own request timeout covers only the headers), and one whose body has no end.
 */
class BoundedGetTest {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final CountDownLatch done = new CountDownLatch(1);
    private ServerSocket server;
    private Thread serving;

    @AfterEach
    void stop() throws Exception {
        done.countDown();
        server.close();
        serving.join(5_000);
    }

    @Test
    void shouldGiveTheWholeAnswer() throws Exception {
        serve(out -> out.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                .getBytes(StandardCharsets.US_ASCII)));

        BoundedGet.Answer answer = BoundedGet.send(http, get(Duration.ofSeconds(2)), Duration.ofSeconds(2), 100);

        assertThat(answer).isEqualTo(new BoundedGet.Answer(200, "hello"));
    }

    @Test
    void shouldGiveUpOnABodyThatStallsWithinTheLimit() throws Exception {
        // Given a server that sends its headers and one chunk of a chunked body, then nothing
        serve(out -> {
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"ite\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            done.await(30, TimeUnit.SECONDS);
        });

        // When it is asked with a limit of 1 s
        long start = System.nanoTime();
        assertThatThrownBy(() -> BoundedGet.send(http, get(Duration.ofSeconds(1)), Duration.ofSeconds(1), 1_000))
                .isInstanceOf(HttpTimeoutException.class).hasMessageContaining("body included");

        // Then the caller has its answer in about that time, not when the server gives up
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void shouldRefuseABodyLargerThanTheCap() throws Exception {
        // Given a server whose chunked body has no end
        serve(out -> {
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("400\r\n" + "x".repeat(0x400) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 10_000 && done.getCount() > 0; i++) {
                out.write(chunk);
            }
        });

        // Then it is refused once past 64 KiB
        assertThatThrownBy(() -> BoundedGet.send(http, get(Duration.ofSeconds(5)), Duration.ofSeconds(5), 65_536))
                .isInstanceOf(IOException.class).hasMessageContaining("larger than 65536 bytes");
    }

    private HttpRequest get(Duration timeout) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getLocalPort() + "/pods"))
                .timeout(timeout).GET().build();
    }

    private interface Answering {
        void answer(OutputStream out) throws Exception;
    }

    /** Answers the first connection: reads its request's head, then writes what {@code answering} does. */
    private void serve(Answering answering) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        serving = new Thread(() -> {
            try (Socket socket = server.accept()) {
                var in = socket.getInputStream();
                int matched = 0;
                byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                while (matched < end.length) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    matched = b == end[matched] ? matched + 1 : b == end[0] ? 1 : 0;
                }
                answering.answer(socket.getOutputStream());
            } catch (Exception e) {
                // the client went: nothing more to send
            }
        }, "bounded-get-test-server");
        serving.start();
    }
}
