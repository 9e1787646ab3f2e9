//===- ArmCode.cpp - What an Arm image's instructions do to the stack -----===//
#include "ArmCode.h"
#include "LLVMCompat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace scopealloc {
namespace bound {

struct ArmCode::Impl {
  Triple T;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Dis;
  std::unique_ptr<MCInstPrinter> IP;
  std::unique_ptr<MCInstrAnalysis> MIA;
  unsigned SP = 0;
};

ArmCode::ArmCode(std::unique_ptr<Impl> I) : I(std::move(I)) {}
ArmCode::~ArmCode() = default;

std::unique_ptr<ArmCode> ArmCode::create() {
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllDisassemblers();
  auto I = std::make_unique<Impl>();
  // The widest M profile: every Thumb-2, FP and MVE encoding decodes.
  I->T = Triple("thumbv8.1m.main-none-eabi");
#if LLVM_VERSION_MAJOR >= 22
  const Triple &TT = I->T;
#else
  std::string TT = I->T.str();
#endif
  std::string Error;
  const Target *Tgt = TargetRegistry::lookupTarget(TT, Error);
  if (!Tgt)
    return nullptr;
  I->MRI.reset(Tgt->createMCRegInfo(TT));
  if (!I->MRI)
    return nullptr;
  MCTargetOptions Options;
  I->MAI.reset(Tgt->createMCAsmInfo(*I->MRI, TT, Options));
  I->STI.reset(Tgt->createMCSubtargetInfo(TT, "",
                                          "+mve.fp,+fp-armv8d16,+fp64,+dsp"));
  I->MII.reset(Tgt->createMCInstrInfo());
  if (!I->MAI || !I->STI || !I->MII)
    return nullptr;
  I->Ctx = std::make_unique<MCContext>(I->T, I->MAI.get(), I->MRI.get(),
                                       I->STI.get());
  I->Dis.reset(Tgt->createMCDisassembler(*I->STI, *I->Ctx));
  I->IP.reset(Tgt->createMCInstPrinter(I->T, 0, *I->MAI, *I->MII, *I->MRI));
  I->MIA.reset(Tgt->createMCInstrAnalysis(I->MII.get()));
  if (!I->Dis || !I->IP)
    return nullptr;
  for (unsigned R = 1; R < I->MRI->getNumRegs(); ++R)
    if (StringRef(I->MRI->getName(R)).equals_insensitive("sp"))
      I->SP = R;
  if (!I->SP)
    return nullptr;
  return std::unique_ptr<ArmCode>(new ArmCode(std::move(I)));
}

namespace {

/// \p Mnemonic is \p Base, with a condition code (in an IT block) and a
/// width qualifier allowed.
bool isMnemonic(StringRef Mnemonic, StringRef Base) {
  Mnemonic.consume_back(".w");
  Mnemonic.consume_back(".n");
  if (!Mnemonic.consume_front(Base))
    return false;
  static const char *const Conditions[] = {
      "",   "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl",
      "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"};
  for (const char *C : Conditions)
    if (Mnemonic == C)
      return true;
  return false;
}

std::optional<int64_t> immediate(StringRef Op) {
  Op = Op.trim();
  if (!Op.consume_front("#"))
    return std::nullopt;
  bool Negative = Op.consume_front("-");
  uint64_t V;
  if (Op.getAsInteger(0, V) || V > (uint64_t(1) << 32))
    return std::nullopt;
  return Negative ? -int64_t(V) : int64_t(V);
}

/// Bytes of the registers of a list "{r4, r5, lr}", "{d8, d9}".
std::optional<int64_t> listBytes(StringRef Ops) {
  size_t Open = Ops.find('{'), Close = Ops.find('}');
  if (Open == StringRef::npos || Close == StringRef::npos || Close < Open)
    return std::nullopt;
  SmallVector<StringRef, 16> Regs;
  Ops.slice(Open + 1, Close).split(Regs, ',', -1, /*KeepEmpty=*/false);
  int64_t Bytes = 0;
  for (StringRef R : Regs) {
    R = R.trim();
    if (R.empty())
      continue;
    int64_t Each = R[0] == 'd' ? 8 : R[0] == 'q' ? 16 : 4;
    int64_t Count = 1;
    if (auto [From, To] = R.split('-'); !To.empty()) {
      unsigned A, B;
      if (From.drop_front().getAsInteger(10, A) ||
          To.trim().drop_front().getAsInteger(10, B) || B < A)
        return std::nullopt;
      Count = B - A + 1;
    }
    Bytes += Each * Count;
  }
  return Bytes;
}

/// How an instruction that writes the stack pointer moves it (negative:
/// down), from its text; none when the text does not show it.
std::optional<int64_t> stackMove(StringRef Mnemonic, StringRef Ops) {
  SmallVector<StringRef, 4> Parts;
  Ops.split(Parts, ',');
  for (StringRef &P : Parts)
    P = P.trim();
  for (StringRef Base : {"push", "vpush"})
    if (isMnemonic(Mnemonic, Base))
      if (std::optional<int64_t> B = listBytes(Ops))
        return -*B;
  for (StringRef Base : {"stmdb", "stmfd", "vstmdb"})
    if (isMnemonic(Mnemonic, Base) && Ops.starts_with("sp!"))
      if (std::optional<int64_t> B = listBytes(Ops))
        return -*B;
  for (StringRef Base : {"pop", "vpop"})
    if (isMnemonic(Mnemonic, Base))
      return 0; // up: nothing the depth counts
  for (StringRef Base : {"ldm", "ldmia", "ldmfd", "vldmia", "vldm"})
    if (isMnemonic(Mnemonic, Base) && Ops.starts_with("sp!"))
      return 0;
  for (StringRef Base : {"sub", "subs", "subw", "add", "adds", "addw"}) {
    if (!isMnemonic(Mnemonic, Base))
      continue;
    std::optional<int64_t> Imm;
    if (Parts.size() == 2 && Parts[0] == "sp")
      Imm = immediate(Parts[1]);
    else if (Parts.size() == 3 && Parts[0] == "sp" && Parts[1] == "sp")
      Imm = immediate(Parts[2]);
    if (!Imm)
      return std::nullopt;
    return Base.starts_with("sub") ? -*Imm : *Imm;
  }
  // str rX, [sp, #-4]! and ldr rX, [sp], #4.
  for (StringRef Base : {"str", "strd", "strb", "strh", "ldr", "ldrd", "ldrb",
                         "ldrh", "vstr", "vldr"}) {
    if (!isMnemonic(Mnemonic, Base) || Parts.empty() || Parts[0] == "sp")
      continue;
    size_t Pre = Ops.find("[sp, #");
    if (Pre != StringRef::npos && Ops.ends_with("]!"))
      return immediate(Ops.drop_front(Pre + 5).drop_back(2));
    size_t Post = Ops.find("[sp], ");
    if (Post != StringRef::npos)
      return immediate(Ops.drop_front(Post + 6));
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

CodeReading
ArmCode::read(ArrayRef<uint8_t> Bytes, uint64_t Address,
              ArrayRef<std::pair<uint64_t, uint64_t>> Data) const {
  CodeReading R;
  struct Down {
    uint64_t At;
    uint64_t Bytes;
    std::string Text;
  };
  std::vector<Down> Downs;
  std::vector<std::pair<uint64_t, uint64_t>> Loops; ///< backward branches
  auto Describe = [](const std::string &Text, uint64_t At) {
    return "`" + Text + "` at 0x" + utohexstr(At, /*LowerCase=*/true);
  };
  size_t D = 0;
  for (uint64_t Off = 0; Off + 2 <= Bytes.size();) {
    uint64_t At = Address + Off;
    while (D < Data.size() && Data[D].second <= At)
      ++D;
    if (D < Data.size() && Data[D].first <= At) {
      Off = Data[D].second - Address;
      continue;
    }
    MCInst Inst;
    uint64_t Size = 0;
    if (I->Dis->getInstruction(Inst, Size, Bytes.slice(Off), At, nulls()) !=
            MCDisassembler::Success ||
        !Size) {
      Off += 2;
      continue;
    }
    Off += Size;
    const MCInstrDesc &Desc = I->MII->get(Inst.getOpcode());
    StringRef Name = I->MII->getName(Inst.getOpcode());
    bool FP = Name.starts_with("V") || Name.starts_with("MVE_");
    bool WritesSP = Desc.hasDefOfPhysReg(Inst, I->SP, *I->MRI);
    if (I->MIA && I->MIA->isBranch(Inst)) {
      uint64_t Target;
      if (I->MIA->evaluateBranch(Inst, At, Size, Target) && Target <= At &&
          Target >= Address)
        Loops.push_back({Target, At});
    }
    if (!WritesSP && (!FP || !R.FloatingPoint.empty()))
      continue;
    std::string Text;
    raw_string_ostream OS(Text);
    I->IP->printInst(&Inst, At, "", *I->STI, OS);
    OS.flush();
    for (char &C : Text)
      if (C == '\t')
        C = ' ';
    Text = StringRef(Text).trim().str();
    if (FP && R.FloatingPoint.empty())
      R.FloatingPoint = Describe(Text, At);
    if (!WritesSP)
      continue;
    auto [Mnemonic, Ops] = StringRef(Text).split(' ');
    std::optional<int64_t> Move = stackMove(Mnemonic, Ops.trim());
    if (!Move) {
      if (R.Unknown.empty())
        R.Unknown = Describe(Text, At) +
                    " moves the stack pointer by an amount the code does not "
                    "show";
      continue;
    }
    if (*Move < 0)
      Downs.push_back({At, uint64_t(-*Move), Text});
  }
  for (const Down &Dn : Downs) {
    bool InLoop = false;
    for (const auto &[From, To] : Loops)
      InLoop |= From <= Dn.At && Dn.At <= To;
    if (InLoop && R.Unknown.empty())
      R.Unknown = Describe(Dn.Text, Dn.At) +
                  " moves the stack pointer down inside a loop";
    R.Bytes += Dn.Bytes;
  }
  return R;
}

} // namespace bound
} // namespace scopealloc
