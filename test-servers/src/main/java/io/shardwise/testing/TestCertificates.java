package io.shardwise.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Certificates for TLS tests, made in memory with the JDK alone (no openssl, no keytool process):
 * an authority that signs server and client certificates, written as PEM files (what {@code
 * redis-server --tls-*} reads) or PKCS#12 stores (what Java reads).
 *
 * <pre>{@code
 * TestCertificates.Authority ca = TestCertificates.authority("Test CA");
 * TestCertificates.Issued server = ca.issue("redis", "IP:127.0.0.1", "DNS:localhost");
 * Path caFile = ca.writeCertificate(dir.resolve("ca.pem"));
 * server.writeCertificate(dir.resolve("server.pem"));
 * server.writePrivateKey(dir.resolve("server.key"));
 * }</pre>
 *
 * <p>Keys are EC P-256, signatures ECDSA with SHA-256, validity from a day ago for a year.
 * Certificates are X.509 v3: the authority's carries basicConstraints CA=true and keyUsage
 * keyCertSign/cRLSign; issued ones carry their subjectAltNames and extendedKeyUsage serverAuth and
 * clientAuth, so that one certificate serves either end.
 */
public final class TestCertificates {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
  private static final String COMMON_NAME = "2.5.4.3";
  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  private TestCertificates() {}

  /** A new self-signed certificate authority named {@code commonName}. */
  public static Authority authority(String commonName) {
    Objects.requireNonNull(commonName, "commonName");
    KeyPair keys = newKeyPair();
    byte[] name = name(commonName);
    List<byte[]> extensions = new ArrayList<>();
    extensions.add(extension(BASIC_CONSTRAINTS, true, seq(bool(true))));
    // keyCertSign (bit 5) and cRLSign (bit 6): 0000 0110, one unused trailing bit.
    extensions.add(extension(KEY_USAGE, true, tlv(0x03, new byte[] {1, 0x06})));
    X509Certificate certificate =
        sign(name, name, keys.getPublic().getEncoded(), extensions, keys.getPrivate());
    return new Authority(certificate, keys.getPrivate());
  }

  /** A certificate authority: issues certificates and writes its own as a PEM or a trust store. */
  public static final class Authority {
    private final X509Certificate certificate;
    private final PrivateKey key;

    private Authority(X509Certificate certificate, PrivateKey key) {
      this.certificate = certificate;
      this.key = key;
    }

    public X509Certificate certificate() {
      return certificate;
    }

    /**
     * A certificate for {@code commonName} signed by this authority, with the given subject
     * alternative names: {@code "IP:127.0.0.1"}, {@code "DNS:localhost"}.
     */
    public Issued issue(String commonName, String... subjectAltNames) {
      KeyPair keys = newKeyPair();
      List<byte[]> names = new ArrayList<>();
      for (String san : subjectAltNames) {
        names.add(generalName(san));
      }
      List<byte[]> extensions = new ArrayList<>();
      extensions.add(extension(BASIC_CONSTRAINTS, true, seq()));
      if (!names.isEmpty()) {
        extensions.add(extension(SUBJECT_ALT_NAME, false, seq(names.toArray(new byte[0][]))));
      }
      extensions.add(
          extension(EXTENDED_KEY_USAGE, false, seq(oid(SERVER_AUTH), oid(CLIENT_AUTH))));
      X509Certificate issued =
          sign(
              certificate.getSubjectX500Principal().getEncoded(),
              name(commonName),
              keys.getPublic().getEncoded(),
              extensions,
              key);
      return new Issued(issued, keys.getPrivate(), certificate);
    }

    /** Writes this authority's certificate as PEM; returns {@code file}. */
    public Path writeCertificate(Path file) {
      return writePem(file, "CERTIFICATE", encoded(certificate));
    }

    /** Writes a PKCS#12 trust store holding this authority's certificate; returns {@code file}. */
    public Path writeTrustStore(Path file, char[] password) {
      try {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", certificate);
        return writeStore(store, file, password);
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException("cannot build a trust store", e);
      }
    }
  }

  /** A certificate issued by an {@link Authority}, with its private key. */
  public static final class Issued {
    private final X509Certificate certificate;
    private final PrivateKey key;
    private final X509Certificate issuer;

    private Issued(X509Certificate certificate, PrivateKey key, X509Certificate issuer) {
      this.certificate = certificate;
      this.key = key;
      this.issuer = issuer;
    }

    public X509Certificate certificate() {
      return certificate;
    }

    public PrivateKey privateKey() {
      return key;
    }

    /** Writes the certificate as PEM; returns {@code file}. */
    public Path writeCertificate(Path file) {
      return writePem(file, "CERTIFICATE", encoded(certificate));
    }

    /** Writes the private key as unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}). */
    public Path writePrivateKey(Path file) {
      return writePem(file, "PRIVATE KEY", key.getEncoded());
    }

    /**
     * Writes a PKCS#12 key store holding the key and the chain (this certificate, then its
     * issuer's) under the alias {@code key}, protected by {@code password}; returns {@code file}.
     */
    public Path writeKeyStore(Path file, char[] password) {
      try {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("key", key, password, new X509Certificate[] {certificate, issuer});
        return writeStore(store, file, password);
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException("cannot build a key store", e);
      }
    }
  }

  // ---- X.509 --------------------------------------------------------------------------------

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has EC P-256", e);
    }
  }

  private static X509Certificate sign(
      byte[] issuer, byte[] subject, byte[] publicKeyInfo, List<byte[]> extensions, PrivateKey by) {
    Instant now = Instant.now();
    byte[] serial = new byte[16];
    RANDOM.nextBytes(serial);
    byte[] algorithm = seq(oid(ECDSA_WITH_SHA256));
    byte[] tbs =
        seq(
            tlv(0xA0, integer(BigInteger.TWO)),
            integer(new BigInteger(1, serial)),
            algorithm,
            issuer,
            seq(time(now.minus(Duration.ofDays(1))), time(now.plus(Duration.ofDays(365)))),
            subject,
            publicKeyInfo,
            tlv(0xA3, seq(extensions.toArray(new byte[0][]))));
    try {
      Signature signature = Signature.getInstance("SHA256withECDSA");
      signature.initSign(by);
      signature.update(tbs);
      byte[] der = seq(tbs, algorithm, bitString(signature.sign()));
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a test certificate", e);
    }
  }

  private static byte[] name(String commonName) {
    return seq(set(seq(oid(COMMON_NAME), tlv(0x0C, commonName.getBytes(StandardCharsets.UTF_8)))));
  }

  private static byte[] extension(String id, boolean critical, byte[] value) {
    return critical
        ? seq(oid(id), bool(true), tlv(0x04, value))
        : seq(oid(id), tlv(0x04, value));
  }

  /** {@code IP:1.2.3.4} or {@code DNS:name} as a GeneralName. */
  private static byte[] generalName(String san) {
    if (san.startsWith("IP:")) {
      try {
        return tlv(0x87, InetAddress.getByName(san.substring(3)).getAddress());
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("not an IP address: " + san, e);
      }
    }
    if (san.startsWith("DNS:")) {
      return tlv(0x82, san.substring(4).getBytes(StandardCharsets.US_ASCII));
    }
    throw new IllegalArgumentException("subjectAltName must start with IP: or DNS: but was " + san);
  }

  private static byte[] time(Instant instant) {
    if (instant.atZone(ZoneOffset.UTC).getYear() < 2050) {
      String utc =
          DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(instant);
      return tlv(0x17, utc.getBytes(StandardCharsets.US_ASCII));
    }
    String generalized =
        DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(instant);
    return tlv(0x18, generalized.getBytes(StandardCharsets.US_ASCII));
  }

  // ---- DER ----------------------------------------------------------------------------------

  private static byte[] seq(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  private static byte[] set(byte[]... parts) {
    return tlv(0x31, concat(parts));
  }

  private static byte[] bool(boolean value) {
    return tlv(0x01, new byte[] {(byte) (value ? 0xFF : 0)});
  }

  private static byte[] integer(BigInteger value) {
    return tlv(0x02, value.toByteArray());
  }

  private static byte[] bitString(byte[] bytes) {
    byte[] content = new byte[bytes.length + 1];
    System.arraycopy(bytes, 0, content, 1, bytes.length);
    return tlv(0x03, content);
  }

  private static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long arc = Long.parseLong(arcs[i]);
      int groups = 1;
      while ((arc >>> (7 * groups)) != 0) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        int seven = (int) ((arc >>> (7 * g)) & 0x7F);
        out.write(g > 0 ? seven | 0x80 : seven);
      }
    }
    return tlv(0x06, out.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.write(content, 0, content.length);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.write(part, 0, part.length);
    }
    return out.toByteArray();
  }

  // ---- files --------------------------------------------------------------------------------

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path writePem(Path file, String type, byte[] der) {
    String pem =
        "-----BEGIN "
            + type
            + "-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
            + "\n-----END "
            + type
            + "-----\n";
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      return Files.writeString(file, pem, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static Path writeStore(KeyStore store, Path file, char[] password)
      throws GeneralSecurityException, IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
    return file;
  }
}
