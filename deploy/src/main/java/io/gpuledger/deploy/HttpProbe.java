package io.gpuledger.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;

/**
 * {@code java -cp /app/classes io.gpuledger.deploy.HttpProbe URL}: exit status 0 when a GET of URL
 * answers 2xx within two seconds, 1 otherwise. The images hold no shell and no HTTP client, so
 * docker-compose health checks run this, with the image's own Java.
 */
public final class HttpProbe {

    static final int TIMEOUT_MILLIS = 2_000;

    private HttpProbe() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: HttpProbe URL");
            System.exit(2);
        }
        System.exit(probe(args[0]) ? 0 : 1);
    }

    static boolean probe(String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
            connection.setConnectTimeout(TIMEOUT_MILLIS);
            connection.setReadTimeout(TIMEOUT_MILLIS);
            int status = connection.getResponseCode();
            InputStream body = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            if (body != null) {
                body.close();
            }
            connection.disconnect();
            if (status / 100 != 2) {
                System.err.println(url + ": HTTP " + status);
            }
            return status / 100 == 2;
        } catch (IOException | IllegalArgumentException e) {
            System.err.println(url + ": " + e.getMessage());
            return false;
        }
    }
}
