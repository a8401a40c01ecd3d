package io.gpuledger.ingest.agent.owners;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS that trusts the certificates of a PEM file, such as the cluster CA a pod's service account is given
 * ({@code ca.crt}): the kubelet's and the API server's serving certificates are signed by it on most clusters,
 * and a JVM's trust store holds neither.
 */
final class TrustedCertificates {

    private TrustedCertificates() {
    }

    /**
     * @param setting the setting that named the file, for the message
     * @throws IllegalArgumentException when the file cannot be read or holds no certificate
     */
    static SSLContext sslContext(Path caFile, String setting) {
        try (InputStream in = Files.newInputStream(caFile)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int count = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + count++, certificate);
            }
            if (count == 0) {
                throw new IllegalArgumentException(setting + " " + caFile + " holds no certificate");
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(setting + " " + caFile + " cannot be read as PEM certificates: "
                    + e.getMessage(), e);
        }
    }
}
