package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HttpProbeTest {

    @Test
    void shouldPassOnTwoHundredAndFailOnErrorsOrNoAnswer() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/q/health/ready", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.createContext("/q/health/live", exchange -> {
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        try {
            assertThat(HttpProbe.probe(base + "/q/health/ready")).isTrue();
            assertThat(HttpProbe.probe(base + "/q/health/live")).isFalse();
            assertThat(HttpProbe.probe(base + "/nothing-here")).isFalse();
        } finally {
            server.stop(0);
        }
        assertThat(HttpProbe.probe(base + "/q/health/ready")).as("no one listening").isFalse();
        assertThat(HttpProbe.probe("not a url")).isFalse();
    }
}
