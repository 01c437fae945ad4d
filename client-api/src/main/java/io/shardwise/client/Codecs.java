package io.shardwise.client;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The built-in value codecs.
 *
 * <p>All of them write what spymemcached's default {@code SerializingTranscoder} writes for the
 * same value: the same bytes and the same flags, gzip-compressed above 16 KiB when that makes the
 * value smaller. An application that used spymemcached can switch to Shardwise and read its
 * existing cache, and the other way round. Every codec reads compressed values (flag 2).
 *
 * <ul>
 *   <li>{@link #spymemcached()}: any value, typed by the flags (memcached only; the default for
 *       memcached)
 *   <li>{@link #utf8()}: strings
 *   <li>{@link #bytes()}: byte arrays
 *   <li>{@link #java()}: Java serialization of any {@link Serializable}
 * </ul>
 *
 * <p>Redis keeps no flags, so with Redis the routing client uses each codec's {@link
 * ValueCodec#withoutFlags()} form, which never compresses.
 *
 * <p>Java deserialization runs code chosen by the bytes it reads. Use {@link #java(ObjectInputFilter)}
 * or {@link #spymemcached(ObjectInputFilter)} with an allow-list when the cache may hold data
 * written by anyone else than your own application.
 */
public final class Codecs {

  /** spymemcached flag: the value is Java-serialized. */
  public static final int FLAG_SERIALIZED = 1;
  /** spymemcached flag: the value is gzip-compressed. */
  public static final int FLAG_COMPRESSED = 2;
  /** spymemcached special-type flags (the high byte). */
  public static final int SPECIAL_MASK = 0xff00;

  static final int SPECIAL_BOOLEAN = 1 << 8;
  static final int SPECIAL_INT = 2 << 8;
  static final int SPECIAL_LONG = 3 << 8;
  static final int SPECIAL_DATE = 4 << 8;
  static final int SPECIAL_BYTE = 5 << 8;
  static final int SPECIAL_FLOAT = 6 << 8;
  static final int SPECIAL_DOUBLE = 7 << 8;
  static final int SPECIAL_BYTEARRAY = 8 << 8;

  /** Values longer than this are compressed when that makes them smaller (spymemcached's rule). */
  public static final int COMPRESSION_THRESHOLD = 16_384;

  private static final Pattern DECIMAL = Pattern.compile("^-?\\d+$");

  private static final ValueCodec<String> UTF8 = new Utf8Codec(true);
  private static final ValueCodec<byte[]> BYTES = new BytesCodec(true);
  private static final ValueCodec<Object> JAVA = new JavaCodec(null, true);
  private static final ValueCodec<Object> SPYMEMCACHED = new SpymemcachedCodec(null);

  private Codecs() {}

  /** UTF-8 strings, flags 0. */
  public static ValueCodec<String> utf8() {
    return UTF8;
  }

  /** Byte arrays as they are, with spymemcached's byte-array flag. */
  public static ValueCodec<byte[]> bytes() {
    return BYTES;
  }

  /** Java serialization of any {@link Serializable} value, with spymemcached's serialized flag. */
  public static ValueCodec<Object> java() {
    return JAVA;
  }

  /** Java serialization, deserializing only what {@code filter} allows. */
  public static ValueCodec<Object> java(ObjectInputFilter filter) {
    return new JavaCodec(Objects.requireNonNull(filter, "filter"), true);
  }

  /**
   * spymemcached's {@code SerializingTranscoder}: strings, byte arrays, boxed primitives and dates
   * in their own compact forms, anything else Java-serialized; the flags say which, so this codec
   * needs memcached.
   */
  public static ValueCodec<Object> spymemcached() {
    return SPYMEMCACHED;
  }

  /** {@link #spymemcached()}, deserializing only what {@code filter} allows. */
  public static ValueCodec<Object> spymemcached(ObjectInputFilter filter) {
    return new SpymemcachedCodec(Objects.requireNonNull(filter, "filter"));
  }

  /**
   * The built-in codec with this name: {@code spymemcached}, {@code utf8}, {@code bytes} or
   * {@code java}.
   */
  public static ValueCodec<?> named(String name) {
    switch (name == null ? "" : name.strip()) {
      case "spymemcached":
        return SPYMEMCACHED;
      case "utf8":
        return UTF8;
      case "bytes":
        return BYTES;
      case "java":
        return JAVA;
      default:
        throw new IllegalArgumentException(
            "unknown codec '" + name + "'; expected one of spymemcached, utf8, bytes, java");
    }
  }

  // ---- shared pieces -------------------------------------------------------------------------

  /** Compresses {@code b} when allowed, longer than the threshold and smaller compressed. */
  private static CachedValue maybeCompress(byte[] b, int flags, boolean compress) {
    if (compress && b.length > COMPRESSION_THRESHOLD) {
      byte[] compressed = gzip(b);
      if (compressed.length < b.length) {
        return CachedValue.of(compressed, flags | FLAG_COMPRESSED);
      }
    }
    return CachedValue.of(b, flags);
  }

  private static byte[] payload(CachedValue stored) {
    return (stored.flags() & FLAG_COMPRESSED) != 0 ? gunzip(stored.bytes()) : stored.bytes();
  }

  private static byte[] gzip(byte[] in) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(in.length / 2 + 32);
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(in);
    } catch (IOException e) {
      throw new CodecException("could not compress " + in.length + " bytes", e);
    }
    return out.toByteArray();
  }

  private static byte[] gunzip(byte[] in) {
    try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(in))) {
      return gz.readAllBytes();
    } catch (IOException e) {
      throw new CodecException("stored value has the compressed flag but is not gzip data", e);
    }
  }

  private static byte[] serialize(Object value) {
    if (!(value instanceof Serializable)) {
      throw new IllegalArgumentException(
          "values must be Serializable for Java serialization but got " + value.getClass().getName());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream os = new ObjectOutputStream(out)) {
      os.writeObject(value);
    } catch (IOException e) {
      throw new CodecException("could not serialize a " + value.getClass().getName(), e);
    }
    return out.toByteArray();
  }

  private static Object deserialize(byte[] bytes, ObjectInputFilter filter) {
    try (ObjectInputStream in = new ContextClassLoaderObjectInputStream(bytes)) {
      if (filter != null) {
        in.setObjectInputFilter(filter);
      }
      return in.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new CodecException("could not deserialize " + bytes.length + " bytes: " + e, e);
    }
  }

  /** Resolves classes with the thread's context class loader first (application servers, Spring). */
  private static final class ContextClassLoaderObjectInputStream extends ObjectInputStream {
    ContextClassLoaderObjectInputStream(byte[] bytes) throws IOException {
      super(new ByteArrayInputStream(bytes));
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      if (loader != null) {
        try {
          return Class.forName(desc.getName(), false, loader);
        } catch (ClassNotFoundException e) {
          // fall back to the default resolution below
        }
      }
      return super.resolveClass(desc);
    }
  }

  /** Big-endian bytes of {@code v} without leading zero bytes (spymemcached's packed numbers). */
  private static byte[] packed(long v, int width) {
    byte[] full = new byte[width];
    for (int i = 0; i < width; i++) {
      full[width - 1 - i] = (byte) (v >>> (8 * i));
    }
    int first = 0;
    while (first < width && full[first] == 0) {
      first++;
    }
    byte[] out = new byte[width - first];
    System.arraycopy(full, first, out, 0, out.length);
    return out;
  }

  private static long unpacked(byte[] b) {
    long v = 0;
    for (byte x : b) {
      v = (v << 8) | (x & 0xFF);
    }
    return v;
  }

  // ---- codecs --------------------------------------------------------------------------------

  private static final class Utf8Codec implements ValueCodec<String> {
    private final boolean compress;

    Utf8Codec(boolean compress) {
      this.compress = compress;
    }

    @Override
    public String name() {
      return "utf8";
    }

    @Override
    public ValueCodec<String> withoutFlags() {
      return compress ? new Utf8Codec(false) : this;
    }

    @Override
    public CachedValue encode(String value) {
      byte[] b = value.getBytes(StandardCharsets.UTF_8);
      return SpymemcachedCodec.isJsonLike(value) ? CachedValue.of(b, 0) : maybeCompress(b, 0, compress);
    }

    @Override
    public String decode(CachedValue stored) {
      return new String(payload(stored), StandardCharsets.UTF_8);
    }
  }

  private static final class BytesCodec implements ValueCodec<byte[]> {
    private final boolean compress;

    BytesCodec(boolean compress) {
      this.compress = compress;
    }

    @Override
    public String name() {
      return "bytes";
    }

    @Override
    public ValueCodec<byte[]> withoutFlags() {
      return compress ? new BytesCodec(false) : this;
    }

    @Override
    public CachedValue encode(byte[] value) {
      return maybeCompress(value, SPECIAL_BYTEARRAY, compress);
    }

    @Override
    public byte[] decode(CachedValue stored) {
      return payload(stored);
    }
  }

  private static final class JavaCodec implements ValueCodec<Object> {
    private final ObjectInputFilter filter;
    private final boolean compress;

    JavaCodec(ObjectInputFilter filter, boolean compress) {
      this.filter = filter;
      this.compress = compress;
    }

    @Override
    public String name() {
      return "java";
    }

    @Override
    public ValueCodec<Object> withoutFlags() {
      return compress ? new JavaCodec(filter, false) : this;
    }

    @Override
    public CachedValue encode(Object value) {
      return maybeCompress(serialize(value), FLAG_SERIALIZED, compress);
    }

    @Override
    public Object decode(CachedValue stored) {
      return deserialize(payload(stored), filter);
    }
  }

  private static final class SpymemcachedCodec implements ValueCodec<Object> {
    private final ObjectInputFilter filter;

    SpymemcachedCodec(ObjectInputFilter filter) {
      this.filter = filter;
    }

    /** spymemcached 2.12 never compresses strings that look like JSON scalars or containers. */
    static boolean isJsonLike(String s) {
      return !s.isEmpty()
          && (s.startsWith("{")
              || s.startsWith("[")
              || s.equals("true")
              || s.equals("false")
              || s.equals("null")
              || DECIMAL.matcher(s).matches());
    }

    @Override
    public String name() {
      return "spymemcached";
    }

    @Override
    public boolean needsFlags() {
      return true;
    }

    @Override
    public CachedValue encode(Object o) {
      if (o instanceof String) {
        return UTF8.encode((String) o);
      }
      byte[] b;
      int flags;
      if (o instanceof Long) {
        b = packed((Long) o, 8);
        flags = SPECIAL_LONG;
      } else if (o instanceof Integer) {
        b = packed((Integer) o & 0xFFFFFFFFL, 4);
        flags = SPECIAL_INT;
      } else if (o instanceof Boolean) {
        b = new byte[] {(byte) ((Boolean) o ? '1' : '0')};
        flags = SPECIAL_BOOLEAN;
      } else if (o instanceof Date) {
        b = packed(((Date) o).getTime(), 8);
        flags = SPECIAL_DATE;
      } else if (o instanceof Byte) {
        b = new byte[] {(Byte) o};
        flags = SPECIAL_BYTE;
      } else if (o instanceof Float) {
        b = packed(Float.floatToRawIntBits((Float) o) & 0xFFFFFFFFL, 4);
        flags = SPECIAL_FLOAT;
      } else if (o instanceof Double) {
        b = packed(Double.doubleToRawLongBits((Double) o), 8);
        flags = SPECIAL_DOUBLE;
      } else if (o instanceof byte[]) {
        b = (byte[]) o;
        flags = SPECIAL_BYTEARRAY;
      } else {
        b = serialize(o);
        flags = FLAG_SERIALIZED;
      }
      return maybeCompress(b, flags, true);
    }

    @Override
    public Object decode(CachedValue stored) {
      byte[] b = payload(stored);
      int flags = stored.flags();
      if ((flags & FLAG_SERIALIZED) != 0) {
        return deserialize(b, filter);
      }
      switch (flags & SPECIAL_MASK) {
        case 0:
          return new String(b, StandardCharsets.UTF_8);
        case SPECIAL_BOOLEAN:
          return b.length > 0 && b[0] == '1';
        case SPECIAL_INT:
          return (int) unpacked(b);
        case SPECIAL_LONG:
          return unpacked(b);
        case SPECIAL_DATE:
          return new Date(unpacked(b));
        case SPECIAL_BYTE:
          return b.length > 0 ? b[0] : (byte) 0;
        case SPECIAL_FLOAT:
          return Float.intBitsToFloat((int) unpacked(b));
        case SPECIAL_DOUBLE:
          return Double.longBitsToDouble(unpacked(b));
        case SPECIAL_BYTEARRAY:
          return b;
        default:
          throw new CodecException("stored value has unknown type flags 0x" + Integer.toHexString(flags));
      }
    }
  }
}
