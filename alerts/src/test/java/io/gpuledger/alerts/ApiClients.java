package io.gpuledger.alerts;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.ConfigProvider;

/** How tests reach the service as its clients do: the API with a role's token, metrics on the management port. */
public final class ApiClients {

    /** The test profile's tokens (application.properties). */
    public static final String READ_TOKEN = "test-read-token";
    public static final String ACT_TOKEN = "test-token";

    private ApiClients() {
    }

    /** A request with a token of the read role. */
    public static RequestSpecification reader() {
        return given().header("Authorization", "Bearer " + READ_TOKEN);
    }

    /** A request with a token of the act role. */
    public static RequestSpecification actor() {
        return given().header("Authorization", "Bearer " + ACT_TOKEN);
    }

    /** A URL of the management interface, on the port it took (the test profile asks for any free one). */
    public static String management(String path) {
        int port = ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
        return "http://127.0.0.1:" + port + path;
    }
}
