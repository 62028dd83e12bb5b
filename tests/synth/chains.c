/*
 * chains.c - the frames of every chain.  The names are those a profile of
 * `x build --stage 2` on Windows shows; they only feed the address
 * derivation of images.c, so spelling matters only for stability.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "chains.h"
#include "images.h"
#include "programs.h"

#define MAX_CHAIN_FRAMES	10

struct frame {
	enum module	 module;
	const char	*function;
};

struct chain {
	enum chain_id	parent;
	struct frame	frames[MAX_CHAIN_FRAMES];	/* until function NULL */
};

static const struct chain chains[CHAIN_COUNT] = {
	[CH_ROOT_NATIVE] = { NO_CHAIN, {
	    { MOD_NTDLL, "RtlUserThreadStart" },
	    { MOD_KERNEL32, "BaseThreadInitThunk" },
	    { MOD_EXE, "__scrt_common_main_seh" },
	    { MOD_EXE, "wmain" } } },
	[CH_ROOT_PYTHON] = { CH_ROOT_NATIVE, {
	    { MOD_PYTHON, "Py_Main" },
	    { MOD_PYTHON, "pymain_run_python" },
	    { MOD_PYTHON, "_PyRun_SimpleFileObject" },
	    { MOD_PYTHON, "_PyEval_EvalFrameDefault" } } },
	[CH_ROOT_CARGO] = { NO_CHAIN, {
	    { MOD_NTDLL, "RtlUserThreadStart" },
	    { MOD_KERNEL32, "BaseThreadInitThunk" },
	    { MOD_EXE, "__scrt_common_main_seh" },
	    { MOD_EXE, "main" },
	    { MOD_EXE, "std::rt::lang_start_internal" },
	    { MOD_EXE, "cargo::main" },
	    { MOD_EXE, "cargo::ops::cargo_compile::compile_ws" } } },
	[CH_ROOT_RUSTC] = { NO_CHAIN, {
	    { MOD_NTDLL, "RtlUserThreadStart" },
	    { MOD_KERNEL32, "BaseThreadInitThunk" },
	    { MOD_EXE, "__scrt_common_main_seh" },
	    { MOD_EXE, "main" },
	    { MOD_STD, "std::rt::lang_start_internal" },
	    { MOD_EXE, "rustc_main::main" },
	    { MOD_DRIVER, "rustc_driver_impl::main" },
	    { MOD_DRIVER, "rustc_driver_impl::run_compiler" } } },
	[CH_ROOT_RUST_THREAD] = { NO_CHAIN, {
	    { MOD_NTDLL, "RtlUserThreadStart" },
	    { MOD_KERNEL32, "BaseThreadInitThunk" },
	    { MOD_STD, "std::sys::pal::windows::thread::Thread::new::thread_start" },
	    { MOD_DRIVER, "std::sys::backtrace::__rust_begin_short_backtrace" } } },
	[CH_ROOT_NEW_THREAD] = { NO_CHAIN, {
	    { MOD_NTDLL, "LdrInitializeThunk" } } },
	[CH_RUSTC_SESSION] = { CH_ROOT_RUST_THREAD, {
	    { MOD_DRIVER, "rustc_span::create_session_globals_then" },
	    { MOD_DRIVER, "rustc_interface::interface::run_compiler::{{closure}}" },
	    { MOD_DRIVER, "rustc_driver_impl::run_compiler::{{closure}}" } } },
	[CH_CODEGEN_WORK] = { CH_ROOT_RUST_THREAD, {
	    { MOD_DRIVER, "rustc_codegen_ssa::back::write::spawn_work::{{closure}}" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::write::execute_work_item" } } },
	[CH_LINK_MAIN] = { CH_ROOT_NATIVE, {
	    { MOD_EXE, "LinkMain" },
	    { MOD_EXE, "IMAGE::BuildImage" } } },

	[CH_NEW_THREAD] = { CH_ROOT_NEW_THREAD, { { MOD_EXE, NULL } } },
	[CH_CMD_WAIT] = { CH_ROOT_NATIVE, {
	    { MOD_EXE, "Dispatch" },
	    { MOD_EXE, "ExecPgm" },
	    { MOD_EXE, "WaitProc" },
	    { MOD_KERNELBASE, "WaitForSingleObjectEx" },
	    { MOD_NTDLL, "NtWaitForSingleObject" } } },
	[CH_CMD_SPAWN] = { CH_ROOT_NATIVE, {
	    { MOD_EXE, "Dispatch" },
	    { MOD_EXE, "ExecPgm" },
	    { MOD_KERNELBASE, "CreateProcessW" },
	    { MOD_KERNELBASE, "CreateProcessInternalW" },
	    { MOD_NTDLL, "NtCreateUserProcess" } } },
	[CH_PY_WAIT] = { CH_ROOT_PYTHON, {
	    { MOD_PYTHON, "_winapi_WaitForSingleObject" },
	    { MOD_KERNELBASE, "WaitForSingleObjectEx" },
	    { MOD_NTDLL, "NtWaitForSingleObject" } } },
	[CH_PY_SPAWN] = { CH_ROOT_PYTHON, {
	    { MOD_PYTHON, "_winapi_CreateProcess" },
	    { MOD_KERNELBASE, "CreateProcessW" },
	    { MOD_KERNELBASE, "CreateProcessInternalW" },
	    { MOD_NTDLL, "NtCreateUserProcess" } } },
	[CH_PY_JSON] = { CH_ROOT_PYTHON, {
	    { MOD_PYTHON, "_PyFunction_Vectorcall" },
	    { MOD_PYTHON, "_PyEval_EvalFrameDefault" },
	    { MOD_PYTHON, "scanner_call" },
	    { MOD_PYTHON, "scanstring_unicode" } } },
	[CH_PY_STAT] = { CH_ROOT_PYTHON, {
	    { MOD_PYTHON, "os_stat_impl" },
	    { MOD_KERNELBASE, "GetFileAttributesExW" },
	    { MOD_NTDLL, "NtQueryFullAttributesFile" } } },
	[CH_CARGO_WAIT] = { CH_ROOT_CARGO, {
	    { MOD_EXE, "cargo::core::compiler::job_queue::JobQueue::execute" },
	    { MOD_EXE, "cargo::core::compiler::job_queue::DrainState::drain_the_queue" },
	    { MOD_EXE, "std::sync::mpmc::list::Channel<T>::recv" },
	    { MOD_KERNELBASE, "WaitOnAddress" },
	    { MOD_NTDLL, "RtlWaitOnAddress" },
	    { MOD_NTDLL, "NtWaitForAlertByThreadId" } } },
	[CH_CARGO_SPAWN] = { CH_ROOT_CARGO, {
	    { MOD_EXE, "cargo::core::compiler::job_queue::JobQueue::execute" },
	    { MOD_EXE, "cargo::core::compiler::job_queue::DrainState::spawn_work_if_possible" },
	    { MOD_EXE, "cargo_util::process_builder::ProcessBuilder::exec_with_streaming" },
	    { MOD_EXE, "std::sys::pal::windows::process::Command::spawn" },
	    { MOD_KERNELBASE, "CreateProcessW" },
	    { MOD_KERNELBASE, "CreateProcessInternalW" },
	    { MOD_NTDLL, "NtCreateUserProcess" } } },
	[CH_CARGO_FINGERPRINT] = { CH_ROOT_CARGO, {
	    { MOD_EXE, "cargo::core::compiler::compile" },
	    { MOD_EXE, "cargo::core::compiler::fingerprint::prepare_target" },
	    { MOD_EXE, "cargo::core::compiler::fingerprint::calculate" },
	    { MOD_EXE, "cargo::core::compiler::fingerprint::Fingerprint::hash_u64" },
	    { MOD_EXE, "<core::hash::sip::Hasher as core::hash::Hasher>::write" } } },
	[CH_CARGO_JSON] = { CH_ROOT_CARGO, {
	    { MOD_EXE, "cargo::core::compiler::job_queue::JobQueue::execute" },
	    { MOD_EXE, "cargo::core::compiler::job_queue::DrainState::handle_event" },
	    { MOD_EXE, "cargo::core::compiler::on_stderr_line_inner" },
	    { MOD_EXE, "serde_json::de::from_trait" } } },
	[CH_RUSTC_MAIN_INIT] = { CH_ROOT_RUSTC, {
	    { MOD_DRIVER, "rustc_session::config::build_session_options" },
	    { MOD_DRIVER, "getopts::Options::parse" } } },
	[CH_RUSTC_MAIN_SPAWN] = { CH_ROOT_RUSTC, {
	    { MOD_DRIVER, "rustc_interface::util::run_in_thread_pool_with_globals" },
	    { MOD_STD, "std::thread::Builder::spawn_unchecked_" },
	    { MOD_STD, "std::sys::pal::windows::thread::Thread::new" },
	    { MOD_KERNELBASE, "CreateRemoteThreadEx" },
	    { MOD_NTDLL, "NtCreateThreadEx" } } },
	[CH_RUSTC_MAIN_WAIT] = { CH_ROOT_RUSTC, {
	    { MOD_DRIVER, "rustc_interface::util::run_in_thread_pool_with_globals" },
	    { MOD_STD, "std::thread::JoinInner<T>::join" },
	    { MOD_STD, "std::sys::pal::windows::thread::Thread::join" },
	    { MOD_KERNELBASE, "WaitForSingleObjectEx" },
	    { MOD_NTDLL, "NtWaitForSingleObject" } } },
	[CH_RUSTC_PARSE] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::parse" },
	    { MOD_DRIVER, "rustc_parse::parser::Parser::parse_mod" },
	    { MOD_DRIVER, "rustc_parse::parser::Parser::parse_item_common" },
	    { MOD_DRIVER, "rustc_parse::parser::Parser::parse_fn" },
	    { MOD_DRIVER, "rustc_parse::parser::Parser::parse_expr_assoc_with" },
	    { MOD_DRIVER, "rustc_lexer::Cursor::advance_token" } } },
	[CH_RUSTC_EXPAND] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::configure_and_expand" },
	    { MOD_DRIVER, "rustc_expand::expand::MacroExpander::fully_expand_fragment" },
	    { MOD_DRIVER, "rustc_expand::expand::MacroExpander::expand_invoc" },
	    { MOD_DRIVER, "rustc_expand::mbe::macro_rules::expand_macro" },
	    { MOD_DRIVER, "rustc_expand::mbe::transcribe::transcribe" } } },
	[CH_RUSTC_RESOLVE] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::resolver_for_lowering_raw" },
	    { MOD_DRIVER, "rustc_resolve::Resolver::resolve_crate" },
	    { MOD_DRIVER, "rustc_resolve::late::LateResolutionVisitor::resolve_item" },
	    { MOD_DRIVER, "rustc_resolve::late::LateResolutionVisitor::resolve_expr" },
	    { MOD_DRIVER, "rustc_resolve::ident::Resolver::resolve_ident_in_lexical_scope" } } },
	[CH_RUSTC_TYPECK] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::analysis" },
	    { MOD_DRIVER, "rustc_hir_analysis::check_crate" },
	    { MOD_DRIVER, "rustc_query_impl::query_impl::typeck::get_query_non_incr" },
	    { MOD_DRIVER, "rustc_hir_typeck::typeck" },
	    { MOD_DRIVER, "rustc_hir_typeck::fn_ctxt::FnCtxt::check_expr_with_expectation_and_args" },
	    { MOD_DRIVER, "rustc_hir_typeck::method::probe::ProbeContext::pick" },
	    { MOD_DRIVER, "rustc_trait_selection::traits::select::SelectionContext::evaluate_root_obligation" } } },
	[CH_RUSTC_TRAITS] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::analysis" },
	    { MOD_DRIVER, "rustc_hir_analysis::check_crate" },
	    { MOD_DRIVER, "rustc_hir_analysis::check::wfcheck::check_well_formed" },
	    { MOD_DRIVER, "rustc_trait_selection::traits::fulfill::FulfillProcessor::process_obligation" },
	    { MOD_DRIVER, "rustc_trait_selection::traits::select::SelectionContext::candidate_from_obligation" },
	    { MOD_DRIVER, "rustc_infer::infer::InferCtxt::probe" } } },
	[CH_RUSTC_BORROWCK] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::analysis" },
	    { MOD_DRIVER, "rustc_query_impl::query_impl::mir_borrowck::get_query_non_incr" },
	    { MOD_DRIVER, "rustc_borrowck::mir_borrowck" },
	    { MOD_DRIVER, "rustc_borrowck::do_mir_borrowck" },
	    { MOD_DRIVER, "rustc_borrowck::type_check::type_check" },
	    { MOD_DRIVER, "rustc_borrowck::region_infer::RegionInferenceContext::solve" } } },
	[CH_RUSTC_MIR_OPT] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::analysis" },
	    { MOD_DRIVER, "rustc_mir_transform::optimized_mir" },
	    { MOD_DRIVER, "rustc_mir_transform::run_optimization_passes" },
	    { MOD_DRIVER, "rustc_mir_transform::pass_manager::run_passes_inner" },
	    { MOD_DRIVER, "rustc_mir_transform::inline::Inliner::try_inlining" },
	    { MOD_DRIVER, "<rustc_middle::mir::Body as core::clone::Clone>::clone" } } },
	[CH_RUSTC_HASH] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::analysis" },
	    { MOD_DRIVER, "rustc_query_system::query::plumbing::try_execute_query" },
	    { MOD_DRIVER, "rustc_query_system::dep_graph::graph::DepGraphData<D>::with_task" },
	    { MOD_DRIVER, "rustc_data_structures::stable_hasher::StableHasher::finish" },
	    { MOD_DRIVER, "rustc_data_structures::sip128::SipHasher128::short_write_process_buffer" } } },
	[CH_RUSTC_METADATA] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::start_codegen" },
	    { MOD_DRIVER, "rustc_metadata::rmeta::encoder::encode_metadata" },
	    { MOD_DRIVER, "rustc_metadata::rmeta::encoder::EncodeContext::encode_crate_root" },
	    { MOD_DRIVER, "rustc_metadata::rmeta::encoder::EncodeContext::encode_def_ids" },
	    { MOD_DRIVER, "rustc_serialize::opaque::FileEncoder::flush" } } },
	[CH_RUSTC_MONO] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::start_codegen" },
	    { MOD_DRIVER, "rustc_codegen_ssa::base::codegen_crate" },
	    { MOD_DRIVER, "rustc_monomorphize::partitioning::collect_and_partition_mono_items" },
	    { MOD_DRIVER, "rustc_monomorphize::collector::collect_crate_mono_items" },
	    { MOD_DRIVER, "rustc_monomorphize::collector::collect_items_rec" },
	    { MOD_DRIVER, "rustc_monomorphize::collector::items_of_instance" } } },
	[CH_RUSTC_CODEGEN_CGU] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::start_codegen" },
	    { MOD_DRIVER, "rustc_codegen_ssa::base::codegen_crate" },
	    { MOD_DRIVER, "rustc_codegen_llvm::base::compile_codegen_unit" },
	    { MOD_DRIVER, "rustc_codegen_ssa::mir::codegen_mir" },
	    { MOD_DRIVER, "rustc_codegen_ssa::mir::block::FunctionCx::codegen_terminator" },
	    { MOD_DRIVER, "LLVMBuildCall2" },
	    { MOD_DRIVER, "llvm::IRBuilderBase::CreateCall" } } },
	[CH_RUSTC_SPAWN_WORKER] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::passes::start_codegen" },
	    { MOD_DRIVER, "rustc_codegen_ssa::base::codegen_crate" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::write::start_async_codegen" },
	    { MOD_STD, "std::thread::Builder::spawn_unchecked_" },
	    { MOD_STD, "std::sys::pal::windows::thread::Thread::new" },
	    { MOD_KERNELBASE, "CreateRemoteThreadEx" },
	    { MOD_NTDLL, "NtCreateThreadEx" } } },
	[CH_RUSTC_SPAWN_LINK] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::queries::Linker::link" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::link::link_binary" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::link::exec_linker" },
	    { MOD_STD, "std::sys::pal::windows::process::Command::spawn" },
	    { MOD_KERNELBASE, "CreateProcessW" },
	    { MOD_KERNELBASE, "CreateProcessInternalW" },
	    { MOD_NTDLL, "NtCreateUserProcess" } } },
	[CH_RUSTC_LINK_WAIT] = { CH_RUSTC_SESSION, {
	    { MOD_DRIVER, "rustc_interface::queries::Linker::link" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::link::link_binary" },
	    { MOD_DRIVER, "rustc_codegen_ssa::back::link::exec_linker" },
	    { MOD_STD, "std::process::Child::wait" },
	    { MOD_KERNELBASE, "WaitForSingleObjectEx" },
	    { MOD_NTDLL, "NtWaitForSingleObject" } } },
	[CH_LLVM_INSTCOMBINE] = { CH_CODEGEN_WORK, {
	    { MOD_DRIVER, "rustc_codegen_llvm::back::write::optimize" },
	    { MOD_DRIVER, "LLVMRustOptimize" },
	    { MOD_DRIVER, "llvm::PassManager<llvm::Module>::run" },
	    { MOD_DRIVER, "llvm::InstCombinePass::run" },
	    { MOD_DRIVER, "llvm::InstCombinerImpl::run" } } },
	[CH_LLVM_GVN] = { CH_CODEGEN_WORK, {
	    { MOD_DRIVER, "rustc_codegen_llvm::back::write::optimize" },
	    { MOD_DRIVER, "LLVMRustOptimize" },
	    { MOD_DRIVER, "llvm::PassManager<llvm::Module>::run" },
	    { MOD_DRIVER, "llvm::GVNPass::run" },
	    { MOD_DRIVER, "llvm::MemoryDependenceResults::getDependency" } } },
	[CH_LLVM_ISEL] = { CH_CODEGEN_WORK, {
	    { MOD_DRIVER, "rustc_codegen_llvm::back::write::codegen" },
	    { MOD_DRIVER, "LLVMRustWriteOutputFile" },
	    { MOD_DRIVER, "llvm::legacy::PassManagerImpl::run" },
	    { MOD_DRIVER, "llvm::MachineFunctionPass::runOnFunction" },
	    { MOD_DRIVER, "llvm::SelectionDAGISel::runOnMachineFunction" },
	    { MOD_DRIVER, "llvm::SelectionDAGISel::CodeGenAndEmitDAG" } } },
	[CH_LLVM_REGALLOC] = { CH_CODEGEN_WORK, {
	    { MOD_DRIVER, "rustc_codegen_llvm::back::write::codegen" },
	    { MOD_DRIVER, "LLVMRustWriteOutputFile" },
	    { MOD_DRIVER, "llvm::legacy::PassManagerImpl::run" },
	    { MOD_DRIVER, "llvm::MachineFunctionPass::runOnFunction" },
	    { MOD_DRIVER, "llvm::RAGreedy::runOnMachineFunction" },
	    { MOD_DRIVER, "llvm::RAGreedy::selectOrSplit" } } },
	[CH_LLVM_EMIT] = { CH_CODEGEN_WORK, {
	    { MOD_DRIVER, "rustc_codegen_llvm::back::write::codegen" },
	    { MOD_DRIVER, "LLVMRustWriteOutputFile" },
	    { MOD_DRIVER, "llvm::legacy::PassManagerImpl::run" },
	    { MOD_DRIVER, "llvm::MachineFunctionPass::runOnFunction" },
	    { MOD_DRIVER, "llvm::AsmPrinter::emitFunctionBody" },
	    { MOD_DRIVER, "llvm::MCObjectStreamer::emitInstruction" } } },
	[CH_LINK_READ] = { CH_LINK_MAIN, {
	    { MOD_EXE, "IMAGE::Pass1" },
	    { MOD_EXE, "IMAGE::ProcessInputFiles" },
	    { MOD_EXE, "COFF::ReadSymbolTable" } } },
	[CH_LINK_RESOLVE] = { CH_LINK_MAIN, {
	    { MOD_EXE, "IMAGE::Pass1" },
	    { MOD_EXE, "IMAGE::ResolveExternals" },
	    { MOD_EXE, "SYMTAB::LookupExternal" },
	    { MOD_EXE, "HashTable::Find" } } },
	[CH_LINK_ICF] = { CH_LINK_MAIN, {
	    { MOD_EXE, "IMAGE::Pass1" },
	    { MOD_EXE, "IMAGE::IdenticalCodeFolding" },
	    { MOD_EXE, "IMAGE::CompareComdats" } } },
	[CH_LINK_WRITE] = { CH_LINK_MAIN, {
	    { MOD_EXE, "IMAGE::Pass2" },
	    { MOD_EXE, "IMAGE::WriteSections" },
	    { MOD_EXE, "CON::ApplyFixups" } } },
	[CH_LINK_PDB] = { CH_LINK_MAIN, {
	    { MOD_EXE, "IMAGE::EmitDebugInfo" },
	    { MOD_PDBCORE, "PDB1::Commit" },
	    { MOD_PDBCORE, "MSF_HB::Commit" },
	    { MOD_PDBCORE, "MSF_HB::WriteStream" } } },

	[CH_TAIL_ALLOC] = { NO_CHAIN, {
	    { MOD_ALLOC, "malloc" },
	    { MOD_NTDLL, "RtlAllocateHeap" } } },
	[CH_TAIL_REALLOC] = { NO_CHAIN, {
	    { MOD_ALLOC, "realloc" },
	    { MOD_NTDLL, "RtlReAllocateHeap" } } },
	[CH_TAIL_FREE] = { NO_CHAIN, {
	    { MOD_ALLOC, "free" },
	    { MOD_NTDLL, "RtlFreeHeap" } } },
	[CH_TAIL_VIRTUAL_ALLOC] = { NO_CHAIN, {
	    { MOD_ALLOC, "malloc" },
	    { MOD_NTDLL, "RtlAllocateHeap" },
	    { MOD_NTDLL, "RtlpAllocateHeapInternal" },
	    { MOD_NTDLL, "RtlpHpLargeAlloc" },
	    { MOD_NTDLL, "NtAllocateVirtualMemory" } } },
	[CH_TAIL_VIRTUAL_FREE] = { NO_CHAIN, {
	    { MOD_ALLOC, "free" },
	    { MOD_NTDLL, "RtlFreeHeap" },
	    { MOD_NTDLL, "RtlpFreeHeapInternal" },
	    { MOD_NTDLL, "RtlpHpLargeFree" },
	    { MOD_NTDLL, "NtFreeVirtualMemory" } } },
	[CH_TAIL_READ] = { NO_CHAIN, {
	    { MOD_KERNELBASE, "ReadFile" },
	    { MOD_NTDLL, "NtReadFile" } } },
	[CH_TAIL_SET_EVENT] = { NO_CHAIN, {
	    { MOD_KERNELBASE, "SetEvent" },
	    { MOD_NTDLL, "NtSetEvent" } } },

	[CH_K_PAGE_FAULT] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiPageFault" },
	    { MOD_NTOSKRNL, "MmAccessFault" },
	    { MOD_NTOSKRNL, "MiUserFault" },
	    { MOD_NTOSKRNL, "MiResolveDemandZeroFault" },
	    { MOD_NTOSKRNL, "MiZeroPhysicalPage" } } },
	[CH_K_READ] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtReadFile" },
	    { MOD_NTOSKRNL, "IofCallDriver" },
	    { MOD_NTFS, "NtfsFsdRead" },
	    { MOD_NTFS, "NtfsCommonRead" },
	    { MOD_NTOSKRNL, "CcCopyReadEx" },
	    { MOD_NTOSKRNL, "CcMapAndCopyFromCache" } } },
	[CH_K_DPC] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiDpcInterrupt" },
	    { MOD_NTOSKRNL, "KiRetireDpcList" },
	    { MOD_NTOSKRNL, "KiExecuteAllDpcs" },
	    { MOD_HAL, "HalpTimerClockInterrupt" } } },
	[CH_K_IDLE] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiIdleLoop" },
	    { MOD_NTOSKRNL, "PoIdle" },
	    { MOD_NTOSKRNL, "PpmIdleExecuteTransition" },
	    { MOD_HAL, "HalProcessorIdle" } } },
	[CH_K_IDLE_DPC] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiIdleLoop" },
	    { MOD_NTOSKRNL, "KiRetireDpcList" },
	    { MOD_NTOSKRNL, "KiExecuteAllDpcs" },
	    { MOD_NTOSKRNL, "KiTimerExpiration" } } },
	[CH_K_VIRTUAL_ALLOC] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtAllocateVirtualMemory" },
	    { MOD_NTOSKRNL, "MiAllocateVirtualMemory" },
	    { MOD_NTOSKRNL, "MiInsertVadCharges" } } },
	[CH_K_VIRTUAL_FREE] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtFreeVirtualMemory" },
	    { MOD_NTOSKRNL, "MiFreeVirtualMemory" },
	    { MOD_NTOSKRNL, "MiDeleteVad" } } },
	[CH_K_WAIT] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtWaitForSingleObject" },
	    { MOD_NTOSKRNL, "ObWaitForSingleObject" },
	    { MOD_NTOSKRNL, "KeWaitForSingleObject" },
	    { MOD_NTOSKRNL, "KiCommitThreadWait" },
	    { MOD_NTOSKRNL, "KiSwapThread" },
	    { MOD_NTOSKRNL, "KiSwapContext" } } },
	[CH_K_WAIT_ADDRESS] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtWaitForAlertByThreadId" },
	    { MOD_NTOSKRNL, "KeWaitForAlertByThreadId" },
	    { MOD_NTOSKRNL, "KiCommitThreadWait" },
	    { MOD_NTOSKRNL, "KiSwapThread" },
	    { MOD_NTOSKRNL, "KiSwapContext" } } },
	[CH_K_READ_WAIT] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtReadFile" },
	    { MOD_NTOSKRNL, "IopSynchronousServiceTail" },
	    { MOD_NTOSKRNL, "KeWaitForSingleObject" },
	    { MOD_NTOSKRNL, "KiCommitThreadWait" },
	    { MOD_NTOSKRNL, "KiSwapThread" },
	    { MOD_NTOSKRNL, "KiSwapContext" } } },
	[CH_K_PREEMPT] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiDpcInterrupt" },
	    { MOD_NTOSKRNL, "KiDispatchInterruptContinue" },
	    { MOD_NTOSKRNL, "KiQuantumEnd" },
	    { MOD_NTOSKRNL, "KiSwapContext" } } },
	[CH_K_THREAD_START] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiStartUserThread" },
	    { MOD_NTOSKRNL, "PspUserThreadStartup" },
	    { MOD_NTOSKRNL, "KiSwapContext" } } },
	[CH_K_READY_SET_EVENT] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtSetEvent" },
	    { MOD_NTOSKRNL, "KeSetEvent" },
	    { MOD_NTOSKRNL, "KiSignalThread" },
	    { MOD_NTOSKRNL, "KiReadyThread" } } },
	[CH_K_READY_TIMER] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiIdleLoop" },
	    { MOD_NTOSKRNL, "KiRetireDpcList" },
	    { MOD_NTOSKRNL, "KiProcessExpiredTimerList" },
	    { MOD_NTOSKRNL, "KiSignalThread" },
	    { MOD_NTOSKRNL, "KiReadyThread" } } },
	[CH_K_READY_NEW_PROCESS] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtCreateUserProcess" },
	    { MOD_NTOSKRNL, "PspInsertThread" },
	    { MOD_NTOSKRNL, "KeStartThread" },
	    { MOD_NTOSKRNL, "KiReadyThread" } } },
	[CH_K_READY_NEW_THREAD] = { NO_CHAIN, {
	    { MOD_NTOSKRNL, "KiSystemServiceCopyEnd" },
	    { MOD_NTOSKRNL, "NtCreateThreadEx" },
	    { MOD_NTOSKRNL, "PspCreateThread" },
	    { MOD_NTOSKRNL, "PspInsertThread" },
	    { MOD_NTOSKRNL, "KiReadyThread" } } },
};

/*
 * Resolves a chain and its parents in `prog`, root first.
 * @return : the frame count, 0 if the program lacks one of the modules.
 */
static int
resolve(enum chain_id id, enum program prog, int pointer_size, uint64_t *out)
{
	const struct chain *c = &chains[id];
	enum image_id image;
	int i, n = 0;

	if (c->parent != NO_CHAIN &&
	    (n = resolve(c->parent, prog, pointer_size, out)) == 0)
		return 0;
	for (i = 0; i < MAX_CHAIN_FRAMES && c->frames[i].function != NULL;
	    i++) {
		image = program_desc(prog)->modules[c->frames[i].module];
		if (image == NO_IMAGE)
			return 0;
		out[n++] = image_function_address(image, c->frames[i].function,
		    pointer_size);
	}
	return n;
}

void
chain_addresses_init(struct chain_addresses *ca, int pointer_size)
{
	int prog, id;

	for (prog = 0; prog < PROGRAM_COUNT; prog++)
		for (id = 0; id < CHAIN_COUNT; id++)
			ca->count[prog][id] = resolve((enum chain_id)id,
			    (enum program)prog, pointer_size,
			    ca->frames[prog][id]);
}

int
chain_frames(const struct chain_addresses *ca, enum chain_id id,
    enum program prog, uint64_t *out, int n)
{
	int i, count = ca->count[prog][id];

	/* A chain used in a program that lacks its module is a bug. */
	assert(count > 0 && n + count <= MAX_STACK_FRAMES);
	for (i = 0; i < count; i++)
		out[n++] = ca->frames[prog][id][i];
	return n;
}

int
chain_frames_innermost(const struct chain_addresses *ca, enum chain_id id,
    enum program prog, uint64_t *out, int n)
{
	int i, count = ca->count[prog][id];

	assert(count > 0 && n + count <= MAX_STACK_FRAMES);
	for (i = count - 1; i >= 0; i--)
		out[n++] = ca->frames[prog][id][i];
	return n;
}
