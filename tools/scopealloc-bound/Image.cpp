//===- Image.cpp - What scopealloc-bound reads from an ELF file -----------===//
#include "Image.h"
#include "ArmCode.h"
#include "FactsFormat.h"
#include "LLVMCompat.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/ARMBuildAttributes.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>

static_assert(scopealloc::bound::PoolCapacity::PartitionAlign ==
                  SCOPEALLOC_POOL_ALIGN,
              "partitions are rounded as the runtime rounds them");

using namespace llvm;
using namespace llvm::object;

namespace scopealloc {
namespace bound {

namespace {

/// Sections named like an interrupt vector table.
bool isVectorTable(StringRef Name) {
  return Name == ".isr_vector" || Name == ".isr_vectors" ||
         Name == ".vectors" || Name == ".vector_table" || Name == ".intvecs";
}

bool isRelativeRelocation(uint16_t EMachine, uint64_t Type) {
  switch (EMachine) {
  case ELF::EM_X86_64:
    return Type == ELF::R_X86_64_RELATIVE;
  case ELF::EM_386:
    return Type == ELF::R_386_RELATIVE;
  case ELF::EM_ARM:
    return Type == ELF::R_ARM_RELATIVE;
  case ELF::EM_AARCH64:
    return Type == ELF::R_AARCH64_RELATIVE;
  case ELF::EM_RISCV:
    return Type == ELF::R_RISCV_RELATIVE;
  default:
    return false;
  }
}

/// Relocations that only make calls through the PLT: no address taken.
bool isJumpSlot(uint16_t EMachine, uint64_t Type) {
  switch (EMachine) {
  case ELF::EM_X86_64:
    return Type == ELF::R_X86_64_JUMP_SLOT;
  case ELF::EM_386:
    return Type == ELF::R_386_JUMP_SLOT;
  case ELF::EM_ARM:
    return Type == ELF::R_ARM_JUMP_SLOT;
  case ELF::EM_AARCH64:
    return Type == ELF::R_AARCH64_JUMP_SLOT;
  case ELF::EM_RISCV:
    return Type == ELF::R_RISCV_JUMP_SLOT;
  default:
    return false;
  }
}

/// Reads an image through ELFFile's Expected-returning accessors only: every
/// offset, size, index and count the file holds is checked before it is
/// used (ELFObjectFile's SymbolRef and RelocationRef accessors abort on a
/// bad one), and a section that cannot be read is an error naming it.
template <class ELFT> class Reader {
  using Elf_Shdr = typename ELFT::Shdr;
  using Elf_Sym = typename ELFT::Sym;
  using Elf_Sym_Range = typename ELFT::SymRange;
  using Elf_Word = typename ELFT::Word;

public:
  Reader(const ELFFile<ELFT> &EF, Image &Img) : EF(EF), Img(Img) {}

  Error read() {
    Img.EMachine = EF.getHeader().e_machine;
    Img.Relocatable = EF.getHeader().e_type == ELF::ET_REL;
    Img.AddressSize = ELFT::Is64Bits ? 8 : 4;
    if (Error E = readSectionHeaders())
      return E;
    if (Error E = readSymbols())
      return E;
    for (unsigned I = 0; I < Sections.size(); ++I) {
      StringRef Name = Names[I];
      Error E = Error::success();
      if (Name == facts::SectionName)
        E = readFacts(I);
      else if (Name == ".stack_sizes")
        E = readStackSizes(I);
      else if (isVectorTable(Name))
        E = readVectors(I);
      else if (Name == ".dynamic")
        E = readDynamic(I);
      else if (isStartupTable(Name) && !Img.Relocatable)
        E = readStartup(I);
      else if (Sections[I].sh_type == ELF::SHT_ARM_ATTRIBUTES &&
               Img.isARM())
        readArmAttributes(I);
      // A program interpreter, or glibc's startup files in a static link.
      Img.Hosted |=
          Name == ".interp" || Name == ".dynamic" || Name == ".note.ABI-tag";
      if (E)
        return E;
    }
    Img.Hosted |= Img.AllFunctions.count("__libc_start_main") != 0;
    if (Img.isARM() && !Img.Relocatable) {
      if (Error E = readArmSymbols())
        return E;
      if (Img.Vectors.empty() && !Img.Hosted)
        findVectorTable();
      readArmCode();
    }
    if (!Img.Relocatable) {
      if (Error E = readAddressesInData())
        return E;
      if (Error E = readPools())
        return E;
      if (!Img.Hosted)
        if (Error E = readReservedStack())
          return E;
    }
    return Error::success();
  }

private:
  // (ELFT::Endianness and llvm::endianness are LLVM 18's spellings; the
  // little-endian ELFTs are the same types in every version.)
  static constexpr bool LE = std::is_same_v<ELFT, llvm::object::ELF32LE> ||
                             std::is_same_v<ELFT, llvm::object::ELF64LE>;

  void problem(const Twine &What) { Img.Problems.push_back(What.str()); }

  static Error error(const Twine &What) {
    return createStringError(inconvertibleErrorCode(), What);
  }

  /// "section '.symtab'", or by index while the names are not known.
  std::string section(unsigned I) const {
    if (I < Names.size())
      return "section '" + Names[I].str() + "'";
    return "section [index " + std::to_string(I) + "]";
  }

  Error sectionError(unsigned I, const Twine &What) const {
    return error(section(I) + ": " + What);
  }

  /// The section table and the names, through the section name table.
  Error readSectionHeaders() {
    const auto &H = EF.getHeader();
    Expected<typename ELFT::ShdrRange> Secs = EF.sections();
    if (!Secs)
      return error("section header table (e_shoff 0x" +
                   utohexstr(H.e_shoff, /*LowerCase=*/true) + ", e_shnum " +
                   Twine(H.e_shnum) + "): " + toString(Secs.takeError()));
    Sections = *Secs;
    if (Sections.empty())
      return Error::success();
    uint32_t Index = H.e_shstrndx;
    if (Index == ELF::SHN_XINDEX)
      Index = Sections[0].sh_link;
    if (Index == ELF::SHN_UNDEF) { // no names: nothing is found by name
      Names.assign(Sections.size(), StringRef());
      return Error::success();
    }
    if (Index >= Sections.size())
      return error("e_shstrndx: section name table index " + Twine(Index) +
                   " past the last section (" + Twine(Sections.size() - 1) +
                   ")");
    if (Expected<StringRef> Data = contents(Index); !Data)
      return error("section name table (e_shstrndx " + Twine(Index) +
                   "): " + toString(Data.takeError()));
    Expected<StringRef> Table = EF.getStringTable(Sections[Index]);
    if (!Table)
      return sectionError(Index, "section name table (e_shstrndx): " +
                                     toString(Table.takeError()));
    for (unsigned I = 0; I < Sections.size(); ++I) {
      uint32_t Off = Sections[I].sh_name;
      if (Off >= Table->size())
        return error("section [index " + Twine(I) + "]: name offset 0x" +
                     utohexstr(Off, /*LowerCase=*/true) +
                     " past the end of the section name table (" +
                     Twine(Table->size()) + " bytes)");
      // getStringTable checked that the table ends with a NUL.
      Names.push_back(StringRef(Table->data() + Off));
    }
    return Error::success();
  }

  /// Section \p I's bytes, inside the file.
  Expected<StringRef> contents(unsigned I) const {
    const Elf_Shdr &S = Sections[I];
    if (S.sh_type == ELF::SHT_NOBITS)
      return StringRef();
    uint64_t Off = S.sh_offset, Size = S.sh_size, FileSize = EF.getBufSize();
    if (Off > FileSize || Size > FileSize - Off)
      return sectionError(I, "offset 0x" + utohexstr(Off, /*LowerCase=*/true) +
                                 " + size " + Twine(Size) +
                                 " past the end of the file (" +
                                 Twine(FileSize) + " bytes)");
    return StringRef(reinterpret_cast<const char *>(EF.base()) + Off, Size);
  }

  /// A symbol table, its strings and its extended section indices.
  struct SymbolTable {
    unsigned Section = 0;
    Elf_Sym_Range Syms;
    StringRef Strings;
    ArrayRef<Elf_Word> Shndx;
  };

  Expected<const SymbolTable *> symbolTable(unsigned I) {
    if (auto It = Tables.find(I); It != Tables.end())
      return &It->second;
    const Elf_Shdr &S = Sections[I];
    if (S.sh_type != ELF::SHT_SYMTAB && S.sh_type != ELF::SHT_DYNSYM)
      return sectionError(I, "not a symbol table");
    if (Expected<StringRef> Data = contents(I); !Data)
      return Data.takeError();
    SymbolTable T;
    T.Section = I;
    Expected<Elf_Sym_Range> Syms = EF.symbols(&S);
    if (!Syms)
      return sectionError(I, toString(Syms.takeError()));
    T.Syms = *Syms;
    if (S.sh_link >= Sections.size())
      return sectionError(I, "string table index " + Twine(S.sh_link) +
                                 " past the last section (" +
                                 Twine(Sections.size() - 1) + ")");
    if (Expected<StringRef> Data = contents(S.sh_link); !Data)
      return Data.takeError();
    Expected<StringRef> Strings = EF.getStringTableForSymtab(S, Sections);
    if (!Strings)
      return sectionError(I, "string table: " + toString(Strings.takeError()));
    T.Strings = *Strings;
    for (unsigned X = 0; X < Sections.size(); ++X)
      if (Sections[X].sh_type == ELF::SHT_SYMTAB_SHNDX &&
          Sections[X].sh_link == I) {
        if (Expected<StringRef> Data = contents(X); !Data)
          return Data.takeError();
        Expected<ArrayRef<Elf_Word>> Shndx =
            EF.getSHNDXTable(Sections[X], Sections);
        if (!Shndx)
          return sectionError(X, toString(Shndx.takeError()));
        T.Shndx = *Shndx;
        break;
      }
    return &Tables.try_emplace(I, T).first->second;
  }

  Expected<StringRef> symbolName(const SymbolTable &T, unsigned K) {
    Expected<StringRef> Name = T.Syms[K].getName(T.Strings);
    if (!Name)
      return sectionError(T.Section, "symbol " + Twine(K) + ": " +
                                         toString(Name.takeError()));
    return *Name;
  }

  /// The first section of type \p Type, as ELFObjectFile picks .symtab and
  /// .dynsym.
  std::optional<unsigned> firstOfType(unsigned Type) const {
    for (unsigned I = 0; I < Sections.size(); ++I)
      if (Sections[I].sh_type == Type)
        return I;
    return std::nullopt;
  }

  /// .dynamic: linked against shared libraries; and whether calls through
  /// the PLT are bound lazily (DT_JMPREL without BIND_NOW), so that the
  /// first call through each slot runs the dynamic linker's resolver.
  Error readDynamic(unsigned I) {
    Img.Dynamic = true;
    Expected<StringRef> Data = contents(I);
    if (!Data)
      return Data.takeError();
    unsigned W = Img.AddressSize;
    DataExtractor DE(*Data, LE, W);
    bool PltRelocs = false, Now = false;
    for (uint64_t At = 0; At + 2 * W <= Data->size();) {
      uint64_t Tag = DE.getAddress(&At), Val = DE.getAddress(&At);
      if (Tag == ELF::DT_NULL)
        break;
      if (Tag == ELF::DT_JMPREL && Val)
        PltRelocs = true;
      else if (Tag == ELF::DT_BIND_NOW ||
               (Tag == ELF::DT_FLAGS && (Val & ELF::DF_BIND_NOW)) ||
               (Tag == ELF::DT_FLAGS_1 && (Val & ELF::DF_1_NOW)))
        Now = true;
    }
    Img.LazyBinding = PltRelocs && !Now;
    return Error::success();
  }

  Error readSymbols() {
    for (unsigned Type : {ELF::SHT_SYMTAB, ELF::SHT_DYNSYM}) {
      std::optional<unsigned> I = firstOfType(Type);
      if (!I)
        continue;
      Expected<const SymbolTable *> T = symbolTable(*I);
      if (!T)
        return T.takeError();
      // Symbol 0 is the null symbol.
      for (unsigned K = 1; K < (*T)->Syms.size(); ++K)
        if (Error E = addFunction(**T, K))
          return E;
    }
    return Error::success();
  }

  Error addFunction(const SymbolTable &T, unsigned K) {
    const Elf_Sym &Sym = T.Syms[K];
    if (Sym.getType() != ELF::STT_FUNC || Sym.st_shndx == ELF::SHN_UNDEF)
      return Error::success();
    Expected<StringRef> Name = symbolName(T, K);
    if (!Name)
      return Name.takeError();
    if (Name->empty())
      return Error::success();
    uint64_t Value = Sym.st_value;
    // As ELFObjectFile reads a function's address: without the Thumb or
    // microMIPS bit.
    if (Sym.st_shndx != ELF::SHN_ABS &&
        (Img.EMachine == ELF::EM_ARM || Img.EMachine == ELF::EM_MIPS))
      Value &= ~uint64_t(1);
    uint64_t Addr = Img.normalize(Value);
    std::vector<std::string> &Names = Img.FunctionNames[Addr];
    if (is_contained(Names, *Name))
      return Error::success();
    std::vector<uint64_t> &Addrs = Img.AllFunctions[*Name];
    if (!is_contained(Addrs, Addr))
      Addrs.push_back(Addr);
    if (Sym.getBinding() != ELF::STB_LOCAL) {
      Names.insert(Names.begin(), Name->str());
      Img.GlobalFunctions.try_emplace(*Name, Addr);
    } else {
      Names.push_back(Name->str());
    }
    return Error::success();
  }

  /// plan: static's regions, and the pools the image defines, by their
  /// buffers (the macros' scopealloc_buffer_<name>) or, for a pool over memory
  /// given by address (SCOPEALLOC_DEFINE_POOL_OVER), by the initial limit and
  /// base of
  /// __scopealloc_pool_<name> (zero in a position-independent image, where
  /// relocations fill them in: then unknown). A shared pool's struct also
  /// holds its partition size (scopealloc_pool.unrounded, a plain integer
  /// that no relocation touches), which a hosted image's runtime cuts the
  /// pool by; the single-threaded runtime serves a shared pool whole.
  Error readPools() {
    static constexpr StringRef BufferPrefix = SCOPEALLOC_POOL_BUFFER_PREFIX;
    static constexpr StringRef PoolPrefix = SCOPEALLOC_POOL_SYMBOL_PREFIX;
    std::optional<unsigned> SymTab = firstOfType(ELF::SHT_SYMTAB);
    if (!SymTab)
      return Error::success();
    Expected<const SymbolTable *> TOr = symbolTable(*SymTab);
    if (!TOr)
      return TOr.takeError();
    const SymbolTable &T = **TOr;
    std::map<std::string, PoolCapacity> Structs;
    std::map<std::string, uint64_t> Partitions;
    for (unsigned K = 1; K < T.Syms.size(); ++K) {
      const Elf_Sym &Sym = T.Syms[K];
      if (Sym.getType() != ELF::STT_OBJECT && Sym.getType() != ELF::STT_TLS)
        continue;
      Expected<StringRef> Name = symbolName(T, K);
      if (!Name)
        return Name.takeError();
      if (Name->starts_with(SCOPEALLOC_PLAN_REGION_PREFIX)) {
        Img.StaticRegions[Name->str()] = {Sym.st_size,
                                          Sym.getType() == ELF::STT_TLS};
        continue;
      }
      if (Sym.getType() != ELF::STT_OBJECT)
        continue;
      if (Sym.st_shndx != ELF::SHN_UNDEF)
        Img.DataObjects.emplace(Name->str(), Sym.st_size);
      if (Name->starts_with(BufferPrefix)) {
        if (Sym.st_size)
          Img.Pools[Name->drop_front(BufferPrefix.size()).str()] = {
              Sym.st_size, Name->str()};
        continue;
      }
      if (!Name->starts_with(PoolPrefix))
        continue;
      Expected<uint32_t> Index =
          EF.getSectionIndex(Sym, T.Syms, DataRegion<Elf_Word>(T.Shndx));
      if (!Index)
        return sectionError(T.Section, "symbol " + Twine(K) + ": " +
                                           toString(Index.takeError()));
      if (*Index == 0) // undefined, absolute or common
        continue;
      if (*Index >= Sections.size())
        return sectionError(T.Section, "symbol " + Twine(K) +
                                           ": section index " + Twine(*Index) +
                                           " past the last section (" +
                                           Twine(Sections.size() - 1) + ")");
      const Elf_Shdr &Sec = Sections[*Index];
      if (Sec.sh_type == ELF::SHT_NOBITS)
        continue;
      Expected<StringRef> Data = contents(*Index);
      if (!Data)
        return Data.takeError();
      uint64_t Off = Sym.st_value - Sec.sh_addr;
      unsigned W = Img.AddressSize;
      // scopealloc_pool's fields (abi.h): 8 pointers first, `unrounded`
      // the last of them.
      constexpr unsigned LimitField = SCOPEALLOC_POOL_FIELD_LIMIT,
                         BaseField = SCOPEALLOC_POOL_FIELD_BASE,
                         PartitionField = 7;
      static_assert(LimitField < BaseField && BaseField < PartitionField &&
                        PartitionField < SCOPEALLOC_POOL_FIELD_ALLOCS,
                    "read up to the partition size");
      if (Off > Data->size() || Data->size() - Off < (PartitionField + 1) * W)
        continue;
      DataExtractor DE(*Data, LE, W);
      uint64_t At = Off + LimitField * W;
      uint64_t Limit = DE.getAddress(&At);
      At = Off + BaseField * W;
      uint64_t Base = DE.getAddress(&At);
      At = Off + PartitionField * W;
      uint64_t Partition = DE.getAddress(&At);
      std::string Pool = Name->drop_front(PoolPrefix.size()).str();
      if (Partition)
        Partitions[Pool] = Partition;
      if (Base && Limit > Base) {
        // Every frame is at least SCOPEALLOC_MIN_ALIGN-aligned: memory
        // given at an address off that boundary loses its first bytes.
        uint64_t Lost = -Base & (SCOPEALLOC_MIN_ALIGN - 1);
        PoolCapacity C{Limit - Base > Lost ? Limit - Base - Lost : 0,
                       Name->str(), /*Buffer=*/false};
        if (Lost)
          C.Unusable = (Twine(Limit - Base) + " bytes from 0x" +
                        Twine::utohexstr(Base) + ", of which " + Twine(Lost) +
                        " are lost to aligning its first frame to " +
                        Twine(SCOPEALLOC_MIN_ALIGN))
                           .str();
        Structs[Pool] = C;
      }
    }
    for (auto &[Pool, Capacity] : Structs)
      Img.Pools.try_emplace(Pool, Capacity);
    // Only a hosted runtime cuts a shared pool into partitions.
    bool Hosted = Img.Hosted;
    for (auto &[Pool, Partition] : Partitions)
      if (auto It = Img.Pools.find(Pool);
          It != Img.Pools.end() && Partition <= It->second.Bytes) {
        It->second.PartitionAsked = Partition;
        It->second.Partitioned = Hosted;
      }
    return Error::success();
  }

  /// The stack a linker script reserves (Image::Stack): the names the
  /// common start-up files and linker scripts use (CMSIS, STM32Cube,
  /// Zephyr-less bare metal, this project's examples).
  Error readReservedStack() {
    static constexpr std::pair<StringRef, StringRef> Pairs[] = {
        {"__stack_bottom", "__stack_top"}, {"_sstack", "_estack"},
        {"__StackLimit", "__StackTop"},    {"__stack_start", "__stack_end"},
        {"_stack_start", "_stack_end"},    {"__stack_start__", "__stack_end__"},
        {"_stack_bottom", "_stack_top"}};
    static constexpr StringRef Sizes[] = {
        "_Min_Stack_Size", "__stack_size", "_stack_size",   "__STACK_SIZE",
        "STACK_SIZE",      "_STACK_SIZE",  "__stack_size__"};
    static constexpr StringRef StackSections[] = {".stack", ".stack_dummy",
                                                  ".co_stack"};
    std::optional<unsigned> SymTab = firstOfType(ELF::SHT_SYMTAB);
    StringMap<uint64_t> Values;
    if (SymTab) {
      Expected<const SymbolTable *> TOr = symbolTable(*SymTab);
      if (!TOr)
        return TOr.takeError();
      const SymbolTable &T = **TOr;
      for (unsigned K = 1; K < T.Syms.size(); ++K) {
        const Elf_Sym &Sym = T.Syms[K];
        if (Sym.getType() != ELF::STT_NOTYPE &&
            Sym.getType() != ELF::STT_OBJECT)
          continue;
        if (Sym.st_shndx == ELF::SHN_UNDEF)
          continue;
        Expected<StringRef> Name = symbolName(T, K);
        if (!Name)
          return Name.takeError();
        Values.try_emplace(*Name, Sym.st_value);
      }
    }
    for (const auto &[Bottom, Top] : Pairs) {
      auto B = Values.find(Bottom), T = Values.find(Top);
      if (B != Values.end() && T != Values.end() && T->second > B->second) {
        Img.Stack = {T->second - B->second,
                     ("symbols " + Bottom + ".." + Top).str()};
        return Error::success();
      }
    }
    for (StringRef Name : StackSections)
      for (unsigned I = 0; I < Sections.size(); ++I)
        if (Names[I] == Name && Sections[I].sh_size) {
          Img.Stack = {Sections[I].sh_size, ("section " + Name).str()};
          return Error::success();
        }
    for (StringRef Name : Sizes)
      if (auto It = Values.find(Name); It != Values.end() && It->second) {
        Img.Stack = {It->second, ("symbol " + Name).str()};
        return Error::success();
      }
    return Error::success();
  }

  /// .ARM.attributes (the one the linker kept): whether the build
  /// attributes say the code may use the floating-point unit.
  void readArmAttributes(unsigned I) {
    Expected<StringRef> Data = contents(I);
    if (!Data) {
      consumeError(Data.takeError());
      return;
    }
    StringRef D = *Data;
    if (D.empty() || D[0] != 'A')
      return;
    DataExtractor DE(D, LE, 4);
    uint64_t Off = 1;
    while (Off + 4 <= D.size()) {
      uint64_t Start = Off;
      uint64_t Length = DE.getU32(&Off);
      if (Length < 4 || Length > D.size() - Start)
        return;
      uint64_t End = Start + Length;
      StringRef Vendor = D.slice(Off, End).split('\0').first;
      Off += Vendor.size() + 1;
      if (Vendor == "aeabi")
        readAeabiAttributes(DE, Off, End);
      Off = End;
    }
  }

  void readAeabiAttributes(const DataExtractor &DE, uint64_t Off,
                           uint64_t End) {
    StringRef D = DE.getData();
    while (Off < End) {
      uint64_t Start = Off;
      Error Err = Error::success();
      uint64_t Tag = DE.getULEB128(&Off, &Err);
      if (Err) {
        consumeError(std::move(Err));
        return;
      }
      if (Off + 4 > End)
        return;
      uint64_t Size = DE.getU32(&Off);
      if (Size < Off - Start || Size > End - Start)
        return;
      uint64_t SubEnd = Start + Size;
      if (Tag != ARMBuildAttrs::File) { // sections and symbols: skipped
        Off = SubEnd;
        continue;
      }
      while (Off < SubEnd) {
        uint64_t A = DE.getULEB128(&Off, &Err);
        if (Err) {
          consumeError(std::move(Err));
          return;
        }
        auto String = [&] {
          size_t Nul = D.find('\0', Off);
          Off = Nul == StringRef::npos || Nul >= SubEnd ? SubEnd : Nul + 1;
        };
        if (A == ARMBuildAttrs::CPU_raw_name || A == ARMBuildAttrs::CPU_name ||
            (A > 32 && A % 2 == 1)) {
          String();
          continue;
        }
        uint64_t V = DE.getULEB128(&Off, &Err);
        if (Err) {
          consumeError(std::move(Err));
          return;
        }
        if (A == ARMBuildAttrs::compatibility) {
          String();
          continue;
        }
        if (!Img.FloatingPoint.empty())
          continue;
        if (A == ARMBuildAttrs::FP_arch && V)
          Img.FloatingPoint = "Tag_FP_arch " + std::to_string(V) +
                              " in .ARM.attributes";
        else if (A == ARMBuildAttrs::ABI_VFP_args && V == 1)
          Img.FloatingPoint = "Tag_ABI_VFP_args in .ARM.attributes "
                              "(-mfloat-abi=hard)";
        else if (A == ARMBuildAttrs::MVE_arch && V)
          Img.FloatingPoint = "Tag_MVE_arch " + std::to_string(V) +
                              " in .ARM.attributes";
      }
      Off = SubEnd;
    }
  }

  /// An Arm function symbol: where its code is.
  struct ArmFunction {
    uint64_t Address, Size;
    unsigned Section;
    bool Thumb;
  };

  /// .symtab's functions, data objects and mapping symbols ($d: data
  /// begins; $t, $a: code begins) of an Arm image, for the data ranges
  /// of each section and the extent of each function's code.
  Error readArmSymbols() {
    std::optional<unsigned> SymTab = firstOfType(ELF::SHT_SYMTAB);
    if (!SymTab)
      return Error::success();
    Expected<const SymbolTable *> TOr = symbolTable(*SymTab);
    if (!TOr)
      return TOr.takeError();
    const SymbolTable &T = **TOr;
    std::map<unsigned, std::vector<std::pair<uint64_t, bool>>> Mapping;
    for (unsigned K = 1; K < T.Syms.size(); ++K) {
      const Elf_Sym &Sym = T.Syms[K];
      unsigned Type = Sym.getType();
      if (Type != ELF::STT_FUNC && Type != ELF::STT_OBJECT &&
          Type != ELF::STT_NOTYPE)
        continue;
      Expected<uint32_t> Index =
          EF.getSectionIndex(Sym, T.Syms, DataRegion<Elf_Word>(T.Shndx));
      if (!Index) {
        consumeError(Index.takeError());
        continue;
      }
      if (*Index == 0 || *Index >= Sections.size() ||
          !(Sections[*Index].sh_flags & ELF::SHF_EXECINSTR))
        continue;
      uint64_t Value = Sym.st_value, Size = Sym.st_size;
      if (Type == ELF::STT_FUNC) {
        ArmFunctions.push_back({Value & ~uint64_t(1), Size, *Index,
                                bool(Value & 1)});
        continue;
      }
      if (Type == ELF::STT_OBJECT) {
        if (Size)
          DataRanges[*Index].push_back({Value, Value + Size});
        continue;
      }
      Expected<StringRef> Name = symbolName(T, K);
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      StringRef Map = Name->split('.').first;
      if (Map == "$d" || Map == "$t" || Map == "$a")
        Mapping[*Index].push_back({Value & ~uint64_t(1), Map == "$d"});
    }
    for (auto &[Index, Marks] : Mapping) {
      llvm::sort(Marks);
      uint64_t SectionEnd = Sections[Index].sh_addr + Sections[Index].sh_size;
      for (size_t M = 0; M < Marks.size(); ++M)
        if (Marks[M].second) {
          uint64_t End =
              M + 1 < Marks.size() ? Marks[M + 1].first : SectionEnd;
          if (End > Marks[M].first)
            DataRanges[Index].push_back({Marks[M].first, End});
        }
    }
    for (auto &[Index, Ranges] : DataRanges) {
      llvm::sort(Ranges);
      // Merged, so that the code reader skips each once.
      std::vector<std::pair<uint64_t, uint64_t>> Merged;
      for (const auto &R : Ranges)
        if (!Merged.empty() && R.first <= Merged.back().second)
          Merged.back().second = std::max(Merged.back().second, R.second);
        else
          Merged.push_back(R);
      Ranges = std::move(Merged);
    }
    llvm::sort(ArmFunctions, [](const ArmFunction &A, const ArmFunction &B) {
      return std::tie(A.Section, A.Address) < std::tie(B.Section, B.Address);
    });
    return Error::success();
  }

  /// The word at \p Address of an allocated section with contents.
  std::optional<uint32_t> wordAt(uint64_t Address) {
    for (unsigned I = 0; I < Sections.size(); ++I) {
      const Elf_Shdr &S = Sections[I];
      if (!(S.sh_flags & ELF::SHF_ALLOC) || S.sh_type == ELF::SHT_NOBITS ||
          Address < S.sh_addr || Address - S.sh_addr + 4 > S.sh_size)
        continue;
      Expected<StringRef> Data = contents(I);
      if (!Data) {
        consumeError(Data.takeError());
        return std::nullopt;
      }
      uint64_t Off = Address - S.sh_addr;
      if (Off + 4 > Data->size())
        return std::nullopt;
      return DataExtractor(*Data, LE, 4).getU32(&Off);
    }
    return std::nullopt;
  }

  /// A Cortex-M vector table whose section has none of the names (CMSIS's
  /// gcc_arm.ld and libopencm3 put KEEP(*(.vectors)) inside .text): at a
  /// symbol named like one (__isr_vector, __Vectors, vector_table,
  /// g_pfnVectors, exception_table, ...), else at the image's lowest
  /// address (VTOR's reset value maps there), the initial stack pointer
  /// (a word-aligned address that is no function) followed by the reset
  /// vector (a Thumb function), then handlers or zeros.
  void findVectorTable() {
    std::vector<std::tuple<uint64_t, uint64_t, std::string>> Candidates;
    if (std::optional<unsigned> SymTab = firstOfType(ELF::SHT_SYMTAB)) {
      Expected<const SymbolTable *> TOr = symbolTable(*SymTab);
      if (!TOr) {
        consumeError(TOr.takeError());
        return;
      }
      const SymbolTable &T = **TOr;
      for (unsigned K = 1; K < T.Syms.size(); ++K) {
        const Elf_Sym &Sym = T.Syms[K];
        if ((Sym.getType() != ELF::STT_OBJECT &&
             Sym.getType() != ELF::STT_NOTYPE) ||
            Sym.st_shndx == ELF::SHN_UNDEF)
          continue;
        Expected<StringRef> Name = symbolName(T, K);
        if (!Name) {
          consumeError(Name.takeError());
          continue;
        }
        std::string Lower = Name->lower();
        if (StringRef(Lower).contains("vector") ||
            Lower == "exception_table")
          Candidates.push_back(
              {Sym.st_value, Sym.st_size, "symbol " + Name->str()});
      }
    }
    std::optional<uint64_t> Lowest;
    for (const Elf_Shdr &S : Sections)
      if ((S.sh_flags & ELF::SHF_ALLOC) && S.sh_type != ELF::SHT_NOBITS &&
          S.sh_size >= 8 && (!Lowest || S.sh_addr < *Lowest))
        Lowest = S.sh_addr;
    if (Lowest)
      Candidates.push_back({*Lowest, 0,
                            "address 0x" + utohexstr(*Lowest, true) +
                                ", the image's lowest"});
    auto IsThumbFunction = [&](uint32_t W) {
      return (W & 1) && Img.FunctionNames.count(W & ~uint32_t(1));
    };
    for (const auto &[Address, Size, From] : Candidates) {
      std::optional<uint32_t> SP = wordAt(Address),
                              Reset = wordAt(Address + 4);
      if (!SP || !Reset || !*SP || *SP % 4 || Img.FunctionNames.count(*SP) ||
          !IsThumbFunction(*Reset))
        continue;
      // 16 system vectors and at most 496 interrupts.
      uint64_t Count = Size >= 8 ? std::min<uint64_t>(Size / 4, 512) : 512;
      for (uint64_t K = 1; K < Count; ++K) {
        std::optional<uint32_t> W = wordAt(Address + 4 * K);
        if (!W || (*W && !IsThumbFunction(*W))) {
          if (Size >= 8)
            continue; // the symbol says how long it is
          break;
        }
        if (*W)
          Img.Vectors.push_back({unsigned(K), *W & ~uint64_t(1)});
      }
      Img.VectorsFrom = From + " (initial stack pointer and reset vector)";
      return;
    }
  }

  /// What each Arm function's instructions do to the stack pointer, and
  /// whether any uses the floating-point unit.
  void readArmCode() {
    if (ArmFunctions.empty())
      return;
    // Made once: the disassembler's setup costs more than most images.
    static const std::unique_ptr<ArmCode> Code = ArmCode::create();
    if (!Code) {
      problem("no Arm disassembler in this LLVM: the code's own stack "
              "pointer moves and floating-point use are not read");
      return;
    }
    static const std::vector<std::pair<uint64_t, uint64_t>> NoData;
    for (size_t F = 0; F < ArmFunctions.size(); ++F) {
      const ArmFunction &Fn = ArmFunctions[F];
      if (!Fn.Thumb || Img.CodeStacks.count(Fn.Address))
        continue;
      const Elf_Shdr &S = Sections[Fn.Section];
      uint64_t SectionEnd = S.sh_addr + S.sh_size;
      uint64_t End = Fn.Address + Fn.Size;
      if (!Fn.Size) { // assembly without .size: up to the next function
        End = SectionEnd;
        for (size_t N = F + 1; N < ArmFunctions.size(); ++N)
          if (ArmFunctions[N].Section == Fn.Section &&
              ArmFunctions[N].Address > Fn.Address) {
            End = ArmFunctions[N].Address;
            break;
          }
      }
      if (Fn.Address < S.sh_addr || End > SectionEnd || End <= Fn.Address)
        continue;
      Expected<StringRef> Data = contents(Fn.Section);
      if (!Data) {
        consumeError(Data.takeError());
        continue;
      }
      uint64_t Off = Fn.Address - S.sh_addr;
      if (End - S.sh_addr > Data->size())
        continue;
      auto Ranges = DataRanges.find(Fn.Section);
      CodeReading R = Code->read(
          arrayRefFromStringRef(Data->slice(Off, End - S.sh_addr)), Fn.Address,
          Ranges == DataRanges.end() ? NoData : Ranges->second);
      Img.CodeStacks[Fn.Address] = {R.Bytes, R.Unknown};
      if (Img.FloatingPoint.empty() && !R.FloatingPoint.empty()) {
        auto Names = Img.FunctionNames.find(Fn.Address);
        Img.FloatingPoint =
            "the code uses the floating-point unit (" + R.FloatingPoint +
            (Names != Img.FunctionNames.end() && !Names->second.empty()
                 ? " in " + Names->second.front()
                 : std::string()) +
            ")";
      }
    }
  }

  Error readStackSizes(unsigned I) {
    Expected<StringRef> Data = contents(I);
    if (!Data)
      return Data.takeError();
    DataExtractor DE(*Data, LE, Img.AddressSize);
    DataExtractor::Cursor C(0);
    while (C && C.tell() < Data->size()) {
      uint64_t Addr = DE.getAddress(C);
      uint64_t Size = DE.getULEB128(C);
      Img.StackSizeEntries += bool(C);
      if (C && (Addr || !Img.Relocatable))
        Img.StackSizes[Img.normalize(Addr)] = Size;
    }
    if (!C)
      problem(".stack_sizes: " + toString(C.takeError()));
    return Error::success();
  }

  static bool isStartupTable(StringRef Name) {
    return Name == ".init_array" || Name == ".fini_array" ||
           Name == ".preinit_array" || Name == ".ctors" || Name == ".dtors";
  }

  /// A table of constructors or destructors: its words (a static image),
  /// and the relative relocations into it (a PIE's words are zero).
  Error readStartup(unsigned I) {
    StringRef Name = Names[I];
    StartupTables.push_back(
        {Sections[I].sh_addr, Sections[I].sh_size, Name.str()});
    Expected<StringRef> Data = contents(I);
    if (!Data)
      return Data.takeError();
    DataExtractor DE(*Data, LE, Img.AddressSize);
    for (uint64_t Off = 0; Off + Img.AddressSize <= Data->size();
         Off += Img.AddressSize) {
      uint64_t O = Off;
      noteStartup(Name, DE.getAddress(&O));
    }
    return Error::success();
  }

  void noteStartup(StringRef Table, uint64_t Value) {
    uint64_t Addr = Img.normalize(Value);
    if (Addr && Img.FunctionNames.count(Addr) &&
        !is_contained(Img.Startup, std::make_pair(Table.str(), Addr)))
      Img.Startup.push_back({Table.str(), Addr});
  }

  Error readVectors(unsigned I) {
    Expected<StringRef> Data = contents(I);
    if (!Data)
      return Data.takeError();
    if (Img.VectorsFrom.empty())
      Img.VectorsFrom = "section " + Names[I].str();
    DataExtractor DE(*Data, LE, Img.AddressSize);
    DataExtractor::Cursor C(0);
    for (unsigned K = 0; C && C.tell() + Img.AddressSize <= Data->size(); ++K) {
      uint64_t Addr = Img.normalize(DE.getAddress(C));
      if (C && Addr && Img.FunctionNames.count(Addr))
        Img.Vectors.push_back({K, Addr});
    }
    consumeError(C.takeError());
    return Error::success();
  }

  /// Function addresses in allocated, non-executable data, and in dynamic
  /// relocations (a PIE's tables hold zeros and R_*_RELATIVE addends).
  Error readAddressesInData() {
    for (unsigned I = 0; I < Sections.size(); ++I) {
      const Elf_Shdr &S = Sections[I];
      if (!(S.sh_flags & ELF::SHF_ALLOC) || S.sh_type == ELF::SHT_NOBITS)
        continue;
      Expected<StringRef> Data = contents(I);
      if (!Data)
        return Data.takeError();
      DataExtractor DE(*Data, LE, Img.AddressSize);
      auto Scan = [&](uint64_t From, uint64_t To) {
        for (uint64_t Off = alignTo(From, Img.AddressSize);
             Off + Img.AddressSize <= To; Off += Img.AddressSize) {
          uint64_t O = Off;
          noteAddressInData(DE.getAddress(&O));
        }
      };
      if (!(S.sh_flags & ELF::SHF_EXECINSTR)) {
        Scan(0, Data->size());
        continue;
      }
      // Data placed in an executable section (a const table of .rodata
      // that the linker script puts inside .text): the ranges that
      // objects and Arm's $d mapping symbols mark.
      auto It = DataRanges.find(I);
      if (It == DataRanges.end())
        continue;
      for (const auto &[Begin, End] : It->second)
        if (Begin >= S.sh_addr)
          Scan(Begin - S.sh_addr,
               std::min<uint64_t>(End - S.sh_addr, Data->size()));
    }
    Expected<std::vector<unsigned>> Relocs = dynamicRelocationSections();
    if (!Relocs)
      return Relocs.takeError();
    for (unsigned I : *Relocs) {
      Error E = Error::success();
      if (Sections[I].sh_type == ELF::SHT_RELA)
        E = readRelocations(I, EF.relas(Sections[I]));
      else if (Sections[I].sh_type == ELF::SHT_REL)
        E = readRelocations(I, EF.rels(Sections[I]));
      if (E)
        return E;
    }
    return Error::success();
  }

  void noteAddressInData(uint64_t Value) {
    uint64_t Addr = Img.normalize(Value);
    if (Img.FunctionNames.count(Addr))
      Img.AddressesInData.insert(Addr);
  }

  /// The sections DT_REL, DT_RELA and DT_JMPREL point at, in section order
  /// (what ELFObjectFile::dynamic_relocation_sections finds, without
  /// reading past the end of .dynamic).
  Expected<std::vector<unsigned>> dynamicRelocationSections() {
    std::vector<uint64_t> Addresses;
    unsigned W = Img.AddressSize;
    for (unsigned I = 0; I < Sections.size(); ++I) {
      if (Sections[I].sh_type != ELF::SHT_DYNAMIC)
        continue;
      Expected<StringRef> Data = contents(I);
      if (!Data)
        return Data.takeError();
      DataExtractor DE(*Data, LE, W);
      for (uint64_t At = 0; At + 2 * W <= Data->size();) {
        uint64_t Tag = DE.getAddress(&At), Val = DE.getAddress(&At);
        if (Tag == ELF::DT_NULL)
          break;
        if (Tag == ELF::DT_REL || Tag == ELF::DT_RELA || Tag == ELF::DT_JMPREL)
          Addresses.push_back(Val);
      }
    }
    std::vector<unsigned> Out;
    for (unsigned I = 0; I < Sections.size(); ++I)
      if (is_contained(Addresses, uint64_t(Sections[I].sh_addr)))
        Out.push_back(I);
    return Out;
  }

  template <class Rel>
  Error readRelocations(unsigned I, Expected<ArrayRef<Rel>> Relocs) {
    if (Expected<StringRef> Data = contents(I); !Data)
      return Data.takeError();
    if (!Relocs)
      return sectionError(I, toString(Relocs.takeError()));
    bool Mips64EL = EF.isMips64EL();
    for (unsigned K = 0; K < Relocs->size(); ++K) {
      const Rel &R = (*Relocs)[K];
      uint32_t Type = R.getType(Mips64EL);
      if (isRelativeRelocation(Img.EMachine, Type)) {
        // Only RELA holds the address (REL's is in the word, read above).
        if constexpr (std::is_same_v<Rel, typename ELFT::Rela>) {
          uint64_t Addend = uint64_t(int64_t(R.r_addend));
          noteAddressInData(Addend);
          for (const auto &[Begin, Size, Table] : StartupTables)
            if (uint64_t(R.r_offset) - Begin < Size)
              noteStartup(Table, Addend);
        }
        continue;
      }
      if (isJumpSlot(Img.EMachine, Type))
        continue;
      uint32_t SymIndex = R.getSymbol(Mips64EL);
      if (!SymIndex)
        continue;
      uint32_t Link = Sections[I].sh_link;
      if (Link >= Sections.size())
        return sectionError(I, "symbol table index " + Twine(Link) +
                                   " past the last section (" +
                                   Twine(Sections.size() - 1) + ")");
      Expected<const SymbolTable *> T = symbolTable(Link);
      if (!T)
        return sectionError(I, toString(T.takeError()));
      if (SymIndex >= (*T)->Syms.size())
        return sectionError(I, "relocation " + Twine(K) + ": symbol " +
                                   Twine(SymIndex) + " past the end of " +
                                   section(Link) + " (" +
                                   Twine((*T)->Syms.size()) + " symbols)");
      Expected<StringRef> Name = symbolName(**T, SymIndex);
      if (!Name)
        return Name.takeError();
      auto It = Img.GlobalFunctions.find(*Name);
      if (It != Img.GlobalFunctions.end())
        Img.AddressesInData.insert(It->second);
    }
    return Error::success();
  }

  Error readFacts(unsigned I) {
    Expected<StringRef> DataOr = contents(I);
    if (!DataOr)
      return DataOr.takeError();
    StringRef Data = *DataOr;
    uint64_t Off = 0;
    while (Off < Data.size()) {
      if (Data[Off] == 0) { // padding between input sections
        ++Off;
        continue;
      }
      if (Data.size() - Off < facts::HeaderSize ||
          std::memcmp(Data.data() + Off, facts::Magic, 4) != 0) {
        problem(formatv("{0}: no record at offset {1}", facts::SectionName, Off)
                    .str());
        return Error::success();
      }
      uint8_t Version = Data[Off + 4];
      unsigned AddrSize = uint8_t(Data[Off + 5]);
      DataExtractor Head(Data, LE, AddrSize);
      uint64_t LenOff = Off + 8;
      uint64_t Length = Head.getU32(&LenOff);
      uint64_t End = Off + facts::HeaderSize + Length;
      if (End > Data.size()) {
        problem(formatv("{0}: record at offset {1} runs past the section",
                        facts::SectionName, Off)
                    .str());
        return Error::success();
      }
      if (Version == facts::Version && (AddrSize == 4 || AddrSize == 8))
        readRecord(DataExtractor(Data.substr(0, End), LE, AddrSize),
                   Off + facts::HeaderSize);
      else
        problem(formatv("{0}: skipped a record of version {1}",
                        facts::SectionName, unsigned(Version))
                    .str());
      Off = End;
    }
    return Error::success();
  }

  /// Reads fields of one record; remembers the first failure.
  struct FieldReader {
    const DataExtractor &DE;
    uint64_t Off, End;
    bool Failed = false;

    bool fits(uint64_t N) {
      Failed |= Off > End || End - Off < N;
      return !Failed;
    }
    uint64_t uleb() {
      if (Failed)
        return 0;
      Error Err = Error::success();
      uint64_t V = DE.getULEB128(&Off, &Err);
      if (Err) {
        consumeError(std::move(Err));
        Failed = true;
      }
      Failed |= Off > End;
      return V;
    }
    std::string bytes(uint64_t N) {
      if (!fits(N))
        return {};
      std::string S = DE.getData().substr(Off, N).str();
      Off += N;
      return S;
    }
    std::string str() { return bytes(uleb()); }
    uint64_t addr() {
      if (!fits(DE.getAddressSize()))
        return 0;
      return DE.getAddress(&Off);
    }
  };

  void readRecord(const DataExtractor &DE, uint64_t Off) {
    FunctionFacts R;
    FieldReader Rec{DE, Off, DE.size()};
    R.Address = Img.normalize(Rec.addr());
    while (!Rec.Failed && Rec.Off < Rec.End) {
      uint64_t Tag = Rec.uleb();
      uint64_t Size = Rec.uleb();
      if (!Rec.fits(Size))
        break;
      FieldReader F{DE, Rec.Off, Rec.Off + Size};
      Rec.Off += Size;
      switch (Tag) {
      case facts::TagName:
        R.Name = F.bytes(Size);
        break;
      case facts::TagFlags:
        R.Flags = F.uleb();
        break;
      case facts::TagType:
        R.Type = F.bytes(Size);
        break;
      case facts::TagSource:
        R.File = F.str();
        R.Line = F.uleb();
        break;
      case facts::TagPool: {
        FunctionFacts::Pool P;
        P.Name = F.str();
        P.FrameBytes = F.uleb();
        P.Align = F.uleb();
        R.Pools.push_back(std::move(P));
        break;
      }
      case facts::TagDynamic: {
        FunctionFacts::Dynamic D;
        D.Place = F.uleb();
        D.Pool = F.str();
        D.ConstantBytes = F.uleb();
        D.Align = F.uleb();
        D.Flags = F.uleb();
        D.Name = F.str();
        D.Line = F.uleb();
        R.Dynamics.push_back(std::move(D));
        break;
      }
      case facts::TagCall:
      case facts::TagRef: {
        FunctionFacts::SymbolUse U;
        U.Address = Img.normalize(F.addr());
        U.Name = F.str();
        U.Flags = F.uleb();
        if (Tag == facts::TagRef)
          R.Refs.push_back(std::move(U));
        else
          R.Calls.push_back(std::move(U));
        break;
      }
      case facts::TagRecursionBound:
        R.RecursionBound = F.uleb();
        break;
      case facts::TagTaskCreate: {
        FunctionFacts::TaskCreation T;
        T.Creator = F.str();
        T.TaskName = F.str();
        T.Entry = F.str();
        T.StackSymbol = F.str();
        T.StackBytes = F.uleb();
        T.Line = F.uleb();
        R.TaskCreations.push_back(std::move(T));
        break;
      }
      case facts::TagStackAlloca: {
        FunctionFacts::StackAlloca A;
        A.Bytes = F.uleb();
        A.Align = F.uleb();
        A.Name = F.str();
        A.Line = F.uleb();
        if (F.Off < F.End) // a trailing value added after the first version
          A.Flags = F.uleb();
        R.StackAllocas.push_back(std::move(A));
        break;
      }
      case facts::TagIndirectCall: {
        std::string Type = F.str();
        uint64_t Sites = F.uleb();
        R.IndirectCalls[std::move(Type)] += Sites;
        break;
      }
      default:
        break; // a newer field: skipped
      }
      if (F.Failed) {
        problem(formatv("{0}: malformed field {1} in the record of '{2}'",
                        facts::SectionName, Tag, R.Name)
                    .str());
        return;
      }
    }
    if (Rec.Failed) {
      problem(
          formatv("{0}: malformed record of '{1}'", facts::SectionName, R.Name)
              .str());
      return;
    }
    Img.Records.push_back(std::move(R));
  }

  const ELFFile<ELFT> &EF;
  Image &Img;
  ArrayRef<Elf_Shdr> Sections;
  std::vector<StringRef> Names; ///< of Sections, once read
  std::map<unsigned, SymbolTable> Tables;
  /// Arm: the data inside each executable section (objects, $d ranges),
  /// sorted and merged; and the functions, by section and address.
  std::map<unsigned, std::vector<std::pair<uint64_t, uint64_t>>> DataRanges;
  std::vector<ArmFunction> ArmFunctions;
  /// Where the constructor and destructor tables are: address, size, name.
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> StartupTables;
};

template <class ELFT>
Error readELF(const ELFObjectFile<ELFT> &Obj, Image &Img) {
  return Reader<ELFT>(Obj.getELFFile(), Img).read();
}

} // namespace

Expected<Image> readImage(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<ObjectFile>> Bin =
      ObjectFile::createObjectFile(Buffer);
  if (!Bin)
    return Bin.takeError();
  Image Img;
  Img.Path = Buffer.getBufferIdentifier().str();
  Error E = Error::success();
  if (const auto *O = dyn_cast<ELF32LEObjectFile>(Bin->get()))
    E = readELF(*O, Img);
  else if (const auto *O = dyn_cast<ELF32BEObjectFile>(Bin->get()))
    E = readELF(*O, Img);
  else if (const auto *O = dyn_cast<ELF64LEObjectFile>(Bin->get()))
    E = readELF(*O, Img);
  else if (const auto *O = dyn_cast<ELF64BEObjectFile>(Bin->get()))
    E = readELF(*O, Img);
  else
    return createStringError(inconvertibleErrorCode(), "not an ELF file");
  if (E)
    return std::move(E);
  Img.Machine = std::string((*Bin)->getFileFormatName());
  return std::move(Img);
}

Expected<Image> loadImage(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return errorCodeToError(Buffer.getError());
  Expected<Image> Img = readImage((*Buffer)->getMemBufferRef());
  if (Img)
    Img->Path = Path.str();
  return Img;
}

} // namespace bound
} // namespace scopealloc
