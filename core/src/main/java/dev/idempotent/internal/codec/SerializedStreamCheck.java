package dev.idempotent.internal.codec;

import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.ObjectStreamConstants;
import java.io.ObjectStreamException;
import java.io.StreamCorruptedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a Java serialization stream as the grammar of the Java Object Serialization Specification
 * (chapter 6) describes it, without loading or creating any class, and refuses it before {@link
 * java.io.ObjectInputStream} sees it when it names a class the {@link ClassAllowList} refuses, uses
 * a proxy class, nests objects deeper than {@link #MAX_DEPTH}, holds more than {@link #MAX_HANDLES}
 * objects, or announces an array longer than the bytes left could hold.
 *
 * <p>It also bounds the work of hashing what it describes. Reading a {@code HashSet} or {@code
 * HashMap} back hashes every element, and hashing a collection or record hashes its contents; a
 * stream that refers to the same objects again and again (each set holding two sets that each hold
 * the same two sets, and so on) describes a small graph whose unfolded tree is exponentially large,
 * and reading it back never ends. So each object is given its unfolded size (itself plus the
 * unfolded sizes of everything it refers to), and every reference to an object read before adds
 * that object's unfolded size to the shared work; above {@link #MAX_SHARED_WORK} the stream is
 * refused. A tree of objects has no shared work at all, whatever its size; a list of records that
 * share a few small objects has about one unit per reference.
 */
final class SerializedStreamCheck {
  /** Objects nested deeper than this are refused. */
  static final int MAX_DEPTH = 64;

  /** Objects, strings, arrays and class descriptors, together. */
  static final int MAX_HANDLES = 1_000_000;

  /** The bound on the unfolded size of everything referred to again, in objects. */
  static final long MAX_SHARED_WORK = 2_000_000L;

  private static final int MAX_NESTING = 3 * MAX_DEPTH;
  private static final String FIELD_TYPE_CODES = "BCDFIJSZ[L";

  /** A class descriptor as the stream gives it. */
  private static final class Desc {
    final String name;
    byte flags;
    char[] fieldTypes = new char[0];
    Desc superDesc;
    List<Desc> hierarchy;

    Desc(String name) {
      this.name = name;
    }

    /**
     * This class and its serializable superclasses, the topmost first (the order of class data).
     */
    List<Desc> hierarchy() {
      if (hierarchy == null) {
        List<Desc> chain = new ArrayList<>();
        for (Desc d = this; d != null; d = d.superDesc) {
          chain.add(0, d);
        }
        hierarchy = chain;
      }
      return hierarchy;
    }
  }

  private final byte[] bytes;
  private final int end;
  private final ClassAllowList allowList;
  private int pos;
  private int nesting;
  private long sharedWork;

  /**
   * Per handle; sized for a small result (a record and its strings take a handful) and grown as
   * needed.
   */
  private Desc[] descs = new Desc[8];

  private long[] sizes = new long[8];
  private int handles;

  private SerializedStreamCheck(byte[] bytes, int from, ClassAllowList allowList) {
    this.bytes = bytes;
    this.pos = from;
    this.end = bytes.length;
    this.allowList = allowList;
  }

  /**
   * Returns normally when {@code bytes} is one object the codec may read back; else throws why not.
   */
  static void check(byte[] bytes, ClassAllowList allowList) throws ObjectStreamException {
    check(bytes, 0, allowList);
  }

  /**
   * {@link #check(byte[], ClassAllowList)} of the bytes from {@code from} to the end of the array,
   * read in place.
   */
  static void check(byte[] bytes, int from, ClassAllowList allowList) throws ObjectStreamException {
    if (from < 0 || from > bytes.length) {
      throw new IllegalArgumentException("from " + from + " is outside " + bytes.length + " bytes");
    }
    SerializedStreamCheck check = new SerializedStreamCheck(bytes, from, allowList);
    try {
      check.stream();
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new StreamCorruptedException("the recorded bytes end in the middle of an object");
    }
  }

  private void stream() throws ObjectStreamException {
    if (u2() != (ObjectStreamConstants.STREAM_MAGIC & 0xFFFF)
        || u2() != ObjectStreamConstants.STREAM_VERSION) {
      throw new StreamCorruptedException("the recorded bytes are not a Java serialization stream");
    }
    content(1);
    if (pos != end) {
      throw new StreamCorruptedException("the recorded bytes go on after the recorded object");
    }
  }

  /** One object in an object position; returns its unfolded size (0 for null). */
  private long content(int depth) throws ObjectStreamException {
    if (depth > MAX_DEPTH) {
      throw new InvalidObjectException(
          "the recorded object graph is nested deeper than " + MAX_DEPTH + " objects");
    }
    enter();
    byte tc = bytes[pos++];
    long size;
    switch (tc) {
      case ObjectStreamConstants.TC_NULL -> size = 0;
      case ObjectStreamConstants.TC_REFERENCE -> {
        size = reference();
        sharedWork += size;
        if (sharedWork > MAX_SHARED_WORK) {
          throw new InvalidObjectException(
              "the recorded object graph refers to the same objects so often that"
                  + " reading it back could hash more than "
                  + MAX_SHARED_WORK
                  + " objects again");
        }
      }
      case ObjectStreamConstants.TC_OBJECT -> size = newObject(depth);
      case ObjectStreamConstants.TC_STRING -> {
        skip(u2());
        newHandle(null);
        size = 1;
      }
      case ObjectStreamConstants.TC_LONGSTRING -> {
        long length = s8();
        if (length < 0 || length > end - pos) {
          throw new StreamCorruptedException("a recorded string is longer than the recorded bytes");
        }
        skip((int) length);
        newHandle(null);
        size = 1;
      }
      case ObjectStreamConstants.TC_ARRAY -> size = newArray(depth);
      case ObjectStreamConstants.TC_ENUM -> {
        requireDesc(classDesc(depth));
        newHandle(null);
        content(depth + 1);
        size = 1;
      }
      case ObjectStreamConstants.TC_CLASS -> {
        requireDesc(classDesc(depth));
        newHandle(null);
        size = 1;
      }
      case ObjectStreamConstants.TC_CLASSDESC, ObjectStreamConstants.TC_PROXYCLASSDESC -> {
        pos--;
        classDesc(depth);
        size = 1;
      }
      default ->
          throw new StreamCorruptedException(
              "unexpected type code 0x"
                  + Integer.toHexString(tc & 0xFF)
                  + " in the recorded bytes");
    }
    nesting--;
    return size;
  }

  private long reference() throws ObjectStreamException {
    int handle = s4() - ObjectStreamConstants.baseWireHandle;
    if (handle < 0 || handle >= handles) {
      throw new StreamCorruptedException("the recorded bytes refer to an object that is not there");
    }
    long size = sizes[handle];
    return size < 0 ? 1 : size;
  }

  private long newObject(int depth) throws ObjectStreamException {
    Desc desc = requireDesc(classDesc(depth));
    int handle = newHandle(null);
    sizes[handle] = -1;
    long size = 1;
    for (Desc d : desc.hierarchy()) {
      if ((d.flags & ObjectStreamConstants.SC_EXTERNALIZABLE) != 0) {
        if ((d.flags & ObjectStreamConstants.SC_BLOCK_DATA) == 0) {
          throw new InvalidClassException(
              d.name + " is written in the old externalizable format, which is refused");
        }
        size += annotation(depth + 1);
      } else if ((d.flags & ObjectStreamConstants.SC_SERIALIZABLE) != 0) {
        for (char type : d.fieldTypes) {
          size += value(type, depth + 1);
        }
        if ((d.flags & ObjectStreamConstants.SC_WRITE_METHOD) != 0) {
          size += annotation(depth + 1);
        }
      }
    }
    sizes[handle] = size;
    return size;
  }

  private long newArray(int depth) throws ObjectStreamException {
    Desc desc = requireDesc(classDesc(depth));
    if (desc.name.length() < 2 || desc.name.charAt(0) != '[') {
      throw new StreamCorruptedException("a recorded array has the class " + desc.name);
    }
    int handle = newHandle(null);
    int length = s4();
    char element = desc.name.charAt(1);
    int elementBytes = primitiveBytes(element);
    long needs = (long) length * Math.max(elementBytes, 1);
    if (length < 0 || needs > end - pos) {
      throw new InvalidObjectException(
          "a recorded array announces "
              + length
              + " elements, more than the "
              + (end - pos)
              + " bytes left can hold");
    }
    if (elementBytes > 0) {
      skip((int) needs);
      sizes[handle] = 1;
      return 1;
    }
    sizes[handle] = -1;
    long size = 1;
    for (int i = 0; i < length; i++) {
      size += content(depth + 1);
    }
    sizes[handle] = size;
    return size;
  }

  /**
   * Block data and objects up to the end-of-block marker (class and object annotations, custom
   * data).
   */
  private long annotation(int depth) throws ObjectStreamException {
    long size = 0;
    while (true) {
      byte tc = bytes[pos];
      if (tc == ObjectStreamConstants.TC_ENDBLOCKDATA) {
        pos++;
        return size;
      } else if (tc == ObjectStreamConstants.TC_BLOCKDATA) {
        pos++;
        skip(bytes[pos++] & 0xFF);
      } else if (tc == ObjectStreamConstants.TC_BLOCKDATALONG) {
        pos++;
        int length = s4();
        if (length < 0) {
          throw new StreamCorruptedException("a recorded data block has a negative length");
        }
        skip(length);
      } else {
        size += content(depth);
      }
    }
  }

  private long value(char type, int depth) throws ObjectStreamException {
    int primitive = primitiveBytes(type);
    if (primitive > 0) {
      skip(primitive);
      return 0;
    }
    return content(depth);
  }

  /** A class descriptor: new, a reference to one read before, or null. */
  private Desc classDesc(int depth) throws ObjectStreamException {
    enter();
    byte tc = bytes[pos++];
    Desc desc;
    switch (tc) {
      case ObjectStreamConstants.TC_NULL -> desc = null;
      case ObjectStreamConstants.TC_REFERENCE -> {
        int handle = s4() - ObjectStreamConstants.baseWireHandle;
        if (handle < 0 || handle >= handles || descs[handle] == null) {
          throw new StreamCorruptedException(
              "the recorded bytes refer to a class descriptor that is not there");
        }
        desc = descs[handle];
      }
      case ObjectStreamConstants.TC_CLASSDESC -> desc = newClassDesc(depth);
      case ObjectStreamConstants.TC_PROXYCLASSDESC ->
          throw new InvalidClassException(
              "the recorded bytes hold a proxy class, which is refused: its invocation"
                  + " handler would run code that the stored bytes choose");
      default ->
          throw new StreamCorruptedException(
              "unexpected type code 0x"
                  + Integer.toHexString(tc & 0xFF)
                  + " where the recorded bytes should name a class");
    }
    nesting--;
    return desc;
  }

  private Desc newClassDesc(int depth) throws ObjectStreamException {
    String name = utf();
    String refusal = allowList.refusal(name);
    if (refusal != null) {
      throw new InvalidClassException(refusal);
    }
    skip(8); // serialVersionUID
    Desc desc = new Desc(name);
    newHandle(desc); // records the descriptor under its handle (growing the tables first when full)
    desc.flags = bytes[pos++];
    int fields = u2();
    char[] types = new char[fields];
    for (int i = 0; i < fields; i++) {
      char type = (char) (bytes[pos++] & 0xFF);
      if (FIELD_TYPE_CODES.indexOf(type) < 0) {
        throw new StreamCorruptedException(
            "a recorded field of " + name + " has the type code " + (int) type);
      }
      types[i] = type;
      skip(u2()); // field name
      if (type == '[' || type == 'L') {
        content(depth + 1); // the field's class name, a string
      }
    }
    desc.fieldTypes = types;
    annotation(depth + 1);
    desc.superDesc = classDesc(depth + 1);
    return desc;
  }

  private static Desc requireDesc(Desc desc) throws ObjectStreamException {
    if (desc == null) {
      throw new StreamCorruptedException("a recorded object has no class");
    }
    return desc;
  }

  private int newHandle(Desc desc) throws ObjectStreamException {
    if (handles >= MAX_HANDLES) {
      throw new InvalidObjectException(
          "the recorded object graph holds more than " + MAX_HANDLES + " objects");
    }
    if (handles == descs.length) {
      int grown = Math.min(MAX_HANDLES, handles * 2);
      descs = Arrays.copyOf(descs, grown);
      sizes = Arrays.copyOf(sizes, grown);
    }
    descs[handles] = desc;
    sizes[handles] = 1;
    return handles++;
  }

  private void enter() throws ObjectStreamException {
    if (++nesting > MAX_NESTING) {
      throw new InvalidObjectException(
          "the recorded bytes nest class descriptions deeper than " + MAX_NESTING);
    }
  }

  private static int primitiveBytes(char type) {
    return switch (type) {
      case 'B', 'Z' -> 1;
      case 'C', 'S' -> 2;
      case 'I', 'F' -> 4;
      case 'J', 'D' -> 8;
      default -> 0;
    };
  }

  private void skip(int n) throws ObjectStreamException {
    if (n > end - pos) {
      throw new StreamCorruptedException("the recorded bytes end in the middle of an object");
    }
    pos += n;
  }

  private int u2() {
    int v = ((bytes[pos] & 0xFF) << 8) | (bytes[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  private int s4() {
    int v =
        ((bytes[pos] & 0xFF) << 24)
            | ((bytes[pos + 1] & 0xFF) << 16)
            | ((bytes[pos + 2] & 0xFF) << 8)
            | (bytes[pos + 3] & 0xFF);
    pos += 4;
    return v;
  }

  private long s8() {
    long high = s4() & 0xFFFFFFFFL;
    return (high << 32) | (s4() & 0xFFFFFFFFL);
  }

  /** A class name in modified UTF-8. */
  private String utf() throws ObjectStreamException {
    int length = u2();
    if (length > end - pos) {
      throw new StreamCorruptedException("the recorded bytes end in the middle of a class name");
    }
    StringBuilder sb = new StringBuilder(length);
    int stop = pos + length;
    while (pos < stop) {
      int a = bytes[pos++] & 0xFF;
      if (a < 0x80) {
        sb.append((char) a);
      } else if ((a & 0xE0) == 0xC0 && pos < stop) {
        sb.append((char) (((a & 0x1F) << 6) | (bytes[pos++] & 0x3F)));
      } else if ((a & 0xF0) == 0xE0 && pos + 1 < stop) {
        sb.append(
            (char) (((a & 0x0F) << 12) | ((bytes[pos++] & 0x3F) << 6) | (bytes[pos++] & 0x3F)));
      } else {
        throw new StreamCorruptedException("a recorded class name is not valid modified UTF-8");
      }
    }
    return sb.toString();
  }
}
