//===- Image.cpp - What scopealloc-bound reads from an ELF file -----------===//
#include "Image.h"
#include "FactsFormat.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <tuple>

using namespace llvm;
using namespace llvm::object;

namespace scopealloc {
namespace bound {

bool Image::isARM() const { return EMachine == ELF::EM_ARM; }

uint64_t Image::normalize(uint64_t Address) const {
  return isARM() ? Address & ~uint64_t(1) : Address;
}

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

class Reader {
public:
  Reader(const ELFObjectFileBase &Obj, Image &Img) : Obj(Obj), Img(Img) {}

  /// .dynamic: linked against shared libraries; and whether calls through
  /// the PLT are bound lazily (DT_JMPREL without BIND_NOW), so that the
  /// first call through each slot runs the dynamic linker's resolver.
  void readDynamic(const SectionRef &S) {
    Img.Dynamic = true;
    StringRef Data = contents(S);
    unsigned W = Img.AddressSize;
    DataExtractor DE(Data, Obj.isLittleEndian(), W);
    bool PltRelocs = false, Now = false;
    for (uint64_t At = 0; At + 2 * W <= Data.size();) {
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
  }

  Error read() {
    Img.EMachine = Obj.getEMachine();
    Img.Machine = std::string(Obj.getFileFormatName());
    Img.Relocatable = Obj.isRelocatableObject();
    Img.AddressSize = Obj.getBytesInAddress();
    readSymbols();
    for (const SectionRef &S : Obj.sections()) {
      Expected<StringRef> Name = S.getName();
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      if (*Name == facts::SectionName)
        readFacts(S);
      else if (*Name == ".stack_sizes")
        readStackSizes(S);
      else if (isVectorTable(*Name))
        readVectors(S);
      else if (*Name == ".dynamic")
        readDynamic(S);
      else if (isStartupTable(*Name) && !Obj.isRelocatableObject())
        readStartup(S, *Name);
    }
    if (!Img.Relocatable) {
      readAddressesInData();
      readPools();
    }
    return Error::success();
  }

private:
  void problem(const Twine &What) { Img.Problems.push_back(What.str()); }

  StringRef contents(const SectionRef &S) {
    Expected<StringRef> C = S.getContents();
    if (!C) {
      problem("cannot read section: " + toString(C.takeError()));
      return {};
    }
    return *C;
  }

  void readSymbols() {
    auto Add = [&](const ELFSymbolRef &Sym) {
      if (Sym.getELFType() != ELF::STT_FUNC)
        return;
      Expected<uint32_t> Flags = Sym.getFlags();
      if (!Flags || (*Flags & SymbolRef::SF_Undefined)) {
        if (!Flags)
          consumeError(Flags.takeError());
        return;
      }
      Expected<StringRef> Name = Sym.getName();
      Expected<uint64_t> Value = Sym.getValue();
      if (!Name || !Value || Name->empty()) {
        if (!Name)
          consumeError(Name.takeError());
        if (!Value)
          consumeError(Value.takeError());
        return;
      }
      uint64_t Addr = Img.normalize(*Value);
      std::vector<std::string> &Names = Img.FunctionNames[Addr];
      if (is_contained(Names, *Name))
        return;
      std::vector<uint64_t> &Addrs = Img.AllFunctions[*Name];
      if (!is_contained(Addrs, Addr))
        Addrs.push_back(Addr);
      if (Sym.getBinding() != ELF::STB_LOCAL) {
        Names.insert(Names.begin(), Name->str());
        Img.GlobalFunctions.try_emplace(*Name, Addr);
      } else {
        Names.push_back(Name->str());
      }
    };
    for (const ELFSymbolRef &Sym : Obj.symbols())
      Add(Sym);
    for (const ELFSymbolRef &Sym : Obj.getDynamicSymbolIterators())
      Add(Sym);
  }

  /// The pools the image defines, by their buffers (the macros'
  /// scopealloc_buffer_<name>) or, for a pool over memory given by address
  /// (SCOPEALLOC_DEFINE_POOL_OVER), by the initial limit and base of
  /// __scopealloc_pool_<name> (zero in a position-independent image, where
  /// relocations fill them in: then unknown).
  void readPools() {
    static constexpr StringRef BufferPrefix = "scopealloc_buffer_";
    static constexpr StringRef PoolPrefix = "__scopealloc_pool_";
    std::map<std::string, PoolCapacity> Structs;
    for (const ELFSymbolRef &Sym : Obj.symbols()) {
      if (Sym.getELFType() != ELF::STT_OBJECT)
        continue;
      Expected<StringRef> Name = Sym.getName();
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      if (Name->starts_with(BufferPrefix)) {
        if (Sym.getSize())
          Img.Pools[Name->drop_front(BufferPrefix.size()).str()] = {
              Sym.getSize(), Name->str()};
        continue;
      }
      if (!Name->starts_with(PoolPrefix))
        continue;
      Expected<uint64_t> Value = Sym.getValue();
      Expected<section_iterator> Sec = Sym.getSection();
      if (!Value || !Sec || *Sec == Obj.section_end()) {
        if (!Value)
          consumeError(Value.takeError());
        if (!Sec)
          consumeError(Sec.takeError());
        continue;
      }
      if ((*Sec)->isBSS() || (*Sec)->isVirtual())
        continue;
      StringRef Data = contents(**Sec);
      uint64_t Off = *Value - (*Sec)->getAddress();
      unsigned W = Img.AddressSize;
      constexpr unsigned LimitField = SCOPEALLOC_POOL_FIELD_LIMIT,
                         BaseField = SCOPEALLOC_POOL_FIELD_BASE;
      static_assert(LimitField < BaseField, "read up to base");
      if (Off > Data.size() || Data.size() - Off < (BaseField + 1) * W)
        continue;
      DataExtractor DE(Data, Obj.isLittleEndian(), W);
      uint64_t At = Off + LimitField * W;
      uint64_t Limit = DE.getAddress(&At);
      At = Off + BaseField * W;
      uint64_t Base = DE.getAddress(&At);
      if (Base && Limit > Base)
        Structs[Name->drop_front(PoolPrefix.size()).str()] = {
            Limit - Base, Name->str(), /*Buffer=*/false};
    }
    for (auto &[Pool, Capacity] : Structs)
      Img.Pools.try_emplace(Pool, Capacity);
  }

  void readStackSizes(const SectionRef &S) {
    StringRef Data = contents(S);
    DataExtractor DE(Data, Obj.isLittleEndian(), Img.AddressSize);
    DataExtractor::Cursor C(0);
    while (C && C.tell() < Data.size()) {
      uint64_t Addr = DE.getAddress(C);
      uint64_t Size = DE.getULEB128(C);
      Img.StackSizeEntries += bool(C);
      if (C && (Addr || !Img.Relocatable))
        Img.StackSizes[Img.normalize(Addr)] = Size;
    }
    if (!C)
      problem(".stack_sizes: " + toString(C.takeError()));
  }

  static bool isStartupTable(StringRef Name) {
    return Name == ".init_array" || Name == ".fini_array" ||
           Name == ".preinit_array" || Name == ".ctors" || Name == ".dtors";
  }

  /// A table of constructors or destructors: its words (a static image),
  /// and the relative relocations into it (a PIE's words are zero).
  void readStartup(const SectionRef &S, StringRef Name) {
    StartupTables.push_back({S.getAddress(), S.getSize(), Name.str()});
    StringRef Data = contents(S);
    DataExtractor DE(Data, Obj.isLittleEndian(), Img.AddressSize);
    for (uint64_t Off = 0; Off + Img.AddressSize <= Data.size();
         Off += Img.AddressSize) {
      uint64_t O = Off;
      noteStartup(Name, DE.getAddress(&O));
    }
  }

  void noteStartup(StringRef Table, uint64_t Value) {
    uint64_t Addr = Img.normalize(Value);
    if (Addr && Img.FunctionNames.count(Addr) &&
        !is_contained(Img.Startup, std::make_pair(Table.str(), Addr)))
      Img.Startup.push_back({Table.str(), Addr});
  }

  void readVectors(const SectionRef &S) {
    StringRef Data = contents(S);
    DataExtractor DE(Data, Obj.isLittleEndian(), Img.AddressSize);
    DataExtractor::Cursor C(0);
    for (unsigned I = 0; C && C.tell() + Img.AddressSize <= Data.size(); ++I) {
      uint64_t Addr = Img.normalize(DE.getAddress(C));
      if (C && Addr && Img.FunctionNames.count(Addr))
        Img.Vectors.push_back({I, Addr});
    }
    consumeError(C.takeError());
  }

  /// Function addresses in allocated, non-executable data, and in dynamic
  /// relocations (a PIE's tables hold zeros and R_*_RELATIVE addends).
  void readAddressesInData() {
    auto Note = [&](uint64_t Value) {
      uint64_t Addr = Img.normalize(Value);
      if (Img.FunctionNames.count(Addr))
        Img.AddressesInData.insert(Addr);
    };
    for (const SectionRef &S : Obj.sections()) {
      ELFSectionRef ES(S);
      uint64_t F = ES.getFlags();
      if (!(F & ELF::SHF_ALLOC) || (F & ELF::SHF_EXECINSTR) ||
          ES.getType() == ELF::SHT_NOBITS || S.isVirtual())
        continue;
      StringRef Data = contents(S);
      DataExtractor DE(Data, Obj.isLittleEndian(), Img.AddressSize);
      for (uint64_t Off = 0; Off + Img.AddressSize <= Data.size();
           Off += Img.AddressSize) {
        uint64_t O = Off;
        Note(DE.getAddress(&O));
      }
    }
    for (const SectionRef &S : Obj.dynamic_relocation_sections())
      for (const RelocationRef &R : S.relocations()) {
        ELFRelocationRef ER(R);
        uint64_t Type = ER.getType();
        if (isRelativeRelocation(Img.EMachine, Type)) {
          if (Expected<int64_t> Addend = ER.getAddend()) {
            Note(uint64_t(*Addend));
            for (const auto &[Begin, Size, Table] : StartupTables)
              if (R.getOffset() - Begin < Size)
                noteStartup(Table, uint64_t(*Addend));
          } else
            consumeError(Addend.takeError());
          continue;
        }
        if (isJumpSlot(Img.EMachine, Type))
          continue;
        symbol_iterator Sym = R.getSymbol();
        if (Sym == Obj.symbol_end())
          continue;
        if (Expected<StringRef> Name = Sym->getName()) {
          auto It = Img.GlobalFunctions.find(*Name);
          if (It != Img.GlobalFunctions.end())
            Img.AddressesInData.insert(It->second);
        } else {
          consumeError(Name.takeError());
        }
      }
  }

  void readFacts(const SectionRef &S) {
    StringRef Data = contents(S);
    bool LE = Obj.isLittleEndian();
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
        return;
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
        return;
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
    FactsRecord R;
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
        FactsRecord::Pool P;
        P.Name = F.str();
        P.FrameBytes = F.uleb();
        P.Align = F.uleb();
        R.Pools.push_back(std::move(P));
        break;
      }
      case facts::TagDynamic: {
        FactsRecord::Dynamic D;
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
        FactsRecord::SymbolUse U;
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
      case facts::TagStackAlloca: {
        FactsRecord::StackAlloca A;
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
        R.IndirectCalls.push_back({std::move(Type), Sites});
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

  const ELFObjectFileBase &Obj;
  Image &Img;
  /// Where the constructor and destructor tables are: address, size, name.
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> StartupTables;
};

} // namespace

Expected<Image> loadImage(StringRef Path) {
  Expected<OwningBinary<ObjectFile>> Bin = ObjectFile::createObjectFile(Path);
  if (!Bin)
    return Bin.takeError();
  const auto *Obj = dyn_cast<ELFObjectFileBase>(Bin->getBinary());
  if (!Obj)
    return createStringError(inconvertibleErrorCode(),
                             "'%s' is not an ELF file", Path.str().c_str());
  Image Img;
  Img.Path = Path.str();
  if (Error E = Reader(*Obj, Img).read())
    return std::move(E);
  return std::move(Img);
}

} // namespace bound
} // namespace scopealloc
