package io.gpuledger.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Map;

/**
 * How a secured {@link EmbeddedKafka} admits clients: one listener, SASL over TLS with
 * SCRAM-SHA-512, and ACLs ({@code StandardAuthorizer}) on everything but the super users. The
 * controller's listener takes TLS with client certificates, and the broker is its only client.
 *
 * @param keyStore         PKCS12 store of the broker's key and its certificate for 127.0.0.1
 * @param keyStorePassword of the store and of the key
 * @param certificate      that certificate in PEM: what clients trust, and whom the controller admits
 * @param users            SCRAM-SHA-512 users, name to password, created when the broker is formatted
 * @param admin            the user the broker itself speaks as (a super user, like its certificate):
 *                         one of {@code users}, for creating topics and ACLs
 */
public record BrokerSecurity(Path keyStore, String keyStorePassword, Path certificate, Map<String, String> users,
        String admin) {

    public static final String MECHANISM = "SCRAM-SHA-512";

    public BrokerSecurity {
        users = Map.copyOf(users);
        if (!users.containsKey(admin)) {
            throw new IllegalArgumentException("the admin user '" + admin + "' is not one of the users "
                    + users.keySet());
        }
    }

    /** What a client of {@code user} needs besides the bootstrap address: Kafka client settings. */
    public Map<String, String> clientSettings(String user) {
        String password = users.get(user);
        if (password == null) {
            throw new IllegalArgumentException("no user '" + user + "'");
        }
        return Map.of("security.protocol", "SASL_SSL",
                "sasl.mechanism", MECHANISM,
                "sasl.jaas.config", jaas(user, password),
                "ssl.truststore.type", "PEM",
                "ssl.truststore.location", certificate.toString());
    }

    static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }

    /** The principal the broker has on the controller's listener: its certificate's subject. */
    String certificatePrincipal() {
        try (InputStream in = Files.newInputStream(certificate)) {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            return "User:" + cert.getSubjectX500Principal().getName();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the broker's certificate " + certificate, e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate: " + certificate, e);
        }
    }
}
