/*
 * mpi.h - the public interface of rcmpi.
 *
 * Handles are pointers to opaque library objects; the predefined ones are
 * the addresses of objects inside librcmpi (as in Open MPI), so they are
 * constant expressions usable in static initialisers. A function is declared
 * here only once rcmpi implements it (README.md lists them); every MPI_
 * function has a PMPI_ twin for profiling tools.
 */
#ifndef RCMPI_MPI_H
#define RCMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define RCMPI 1
#define RCMPI_VERSION "0.1.0"

/* ---- Handle types ---------------------------------------------------- */
typedef struct rc_comm *MPI_Comm;
typedef struct rc_group *MPI_Group;
typedef struct rc_dtype *MPI_Datatype;
typedef struct rc_op *MPI_Op;
typedef struct rc_req *MPI_Request;
typedef struct rc_errhandler *MPI_Errhandler;
typedef struct rc_message *MPI_Message;
typedef struct rc_info *MPI_Info;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	/* private: bytes received and cancellation flag */
	int rc_cancelled;
	MPI_Count rc_count;
} MPI_Status;

/* ---- Predefined objects (defined inside librcmpi) --------------------- */
#define RC_PREDEF(type, sym) ((type)(void *)&(sym))

extern struct rc_comm rc_mpi_comm_world, rc_mpi_comm_self;
#define MPI_COMM_WORLD RC_PREDEF(MPI_Comm, rc_mpi_comm_world)
#define MPI_COMM_SELF RC_PREDEF(MPI_Comm, rc_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)

extern struct rc_group rc_mpi_group_empty;
#define MPI_GROUP_EMPTY RC_PREDEF(MPI_Group, rc_mpi_group_empty)
#define MPI_GROUP_NULL ((MPI_Group)0)

extern struct rc_errhandler rc_mpi_errors_are_fatal, rc_mpi_errors_return;
#define MPI_ERRORS_ARE_FATAL RC_PREDEF(MPI_Errhandler, rc_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN RC_PREDEF(MPI_Errhandler, rc_mpi_errors_return)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_INFO_NULL ((MPI_Info)0)

extern struct rc_message rc_mpi_message_no_proc;
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC RC_PREDEF(MPI_Message, rc_mpi_message_no_proc)

/* Predefined datatypes. RC_DTYPES(X) lists name, C type, rcmpi symbol. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
extern struct rc_dtype rc_mpi_char, rc_mpi_signed_char, rc_mpi_unsigned_char,
	rc_mpi_byte, rc_mpi_short, rc_mpi_unsigned_short, rc_mpi_int,
	rc_mpi_unsigned, rc_mpi_long, rc_mpi_unsigned_long, rc_mpi_long_long,
	rc_mpi_unsigned_long_long, rc_mpi_float, rc_mpi_double,
	rc_mpi_long_double, rc_mpi_wchar, rc_mpi_c_bool, rc_mpi_int8_t,
	rc_mpi_int16_t, rc_mpi_int32_t, rc_mpi_int64_t, rc_mpi_uint8_t,
	rc_mpi_uint16_t, rc_mpi_uint32_t, rc_mpi_uint64_t,
	rc_mpi_c_float_complex, rc_mpi_c_double_complex,
	rc_mpi_c_long_double_complex, rc_mpi_aint, rc_mpi_offset,
	rc_mpi_count, rc_mpi_packed, rc_mpi_float_int, rc_mpi_double_int,
	rc_mpi_long_int, rc_mpi_2int, rc_mpi_short_int,
	rc_mpi_long_double_int;

#define MPI_CHAR RC_PREDEF(MPI_Datatype, rc_mpi_char)
#define MPI_SIGNED_CHAR RC_PREDEF(MPI_Datatype, rc_mpi_signed_char)
#define MPI_UNSIGNED_CHAR RC_PREDEF(MPI_Datatype, rc_mpi_unsigned_char)
#define MPI_BYTE RC_PREDEF(MPI_Datatype, rc_mpi_byte)
#define MPI_SHORT RC_PREDEF(MPI_Datatype, rc_mpi_short)
#define MPI_UNSIGNED_SHORT RC_PREDEF(MPI_Datatype, rc_mpi_unsigned_short)
#define MPI_INT RC_PREDEF(MPI_Datatype, rc_mpi_int)
#define MPI_UNSIGNED RC_PREDEF(MPI_Datatype, rc_mpi_unsigned)
#define MPI_LONG RC_PREDEF(MPI_Datatype, rc_mpi_long)
#define MPI_UNSIGNED_LONG RC_PREDEF(MPI_Datatype, rc_mpi_unsigned_long)
#define MPI_LONG_LONG_INT RC_PREDEF(MPI_Datatype, rc_mpi_long_long)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG RC_PREDEF(MPI_Datatype, rc_mpi_unsigned_long_long)
#define MPI_FLOAT RC_PREDEF(MPI_Datatype, rc_mpi_float)
#define MPI_DOUBLE RC_PREDEF(MPI_Datatype, rc_mpi_double)
#define MPI_LONG_DOUBLE RC_PREDEF(MPI_Datatype, rc_mpi_long_double)
#define MPI_WCHAR RC_PREDEF(MPI_Datatype, rc_mpi_wchar)
#define MPI_C_BOOL RC_PREDEF(MPI_Datatype, rc_mpi_c_bool)
#define MPI_INT8_T RC_PREDEF(MPI_Datatype, rc_mpi_int8_t)
#define MPI_INT16_T RC_PREDEF(MPI_Datatype, rc_mpi_int16_t)
#define MPI_INT32_T RC_PREDEF(MPI_Datatype, rc_mpi_int32_t)
#define MPI_INT64_T RC_PREDEF(MPI_Datatype, rc_mpi_int64_t)
#define MPI_UINT8_T RC_PREDEF(MPI_Datatype, rc_mpi_uint8_t)
#define MPI_UINT16_T RC_PREDEF(MPI_Datatype, rc_mpi_uint16_t)
#define MPI_UINT32_T RC_PREDEF(MPI_Datatype, rc_mpi_uint32_t)
#define MPI_UINT64_T RC_PREDEF(MPI_Datatype, rc_mpi_uint64_t)
#define MPI_C_COMPLEX RC_PREDEF(MPI_Datatype, rc_mpi_c_float_complex)
#define MPI_C_FLOAT_COMPLEX MPI_C_COMPLEX
#define MPI_C_DOUBLE_COMPLEX RC_PREDEF(MPI_Datatype, rc_mpi_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX \
	RC_PREDEF(MPI_Datatype, rc_mpi_c_long_double_complex)
#define MPI_AINT RC_PREDEF(MPI_Datatype, rc_mpi_aint)
#define MPI_OFFSET RC_PREDEF(MPI_Datatype, rc_mpi_offset)
#define MPI_COUNT RC_PREDEF(MPI_Datatype, rc_mpi_count)
#define MPI_PACKED RC_PREDEF(MPI_Datatype, rc_mpi_packed)
#define MPI_FLOAT_INT RC_PREDEF(MPI_Datatype, rc_mpi_float_int)
#define MPI_DOUBLE_INT RC_PREDEF(MPI_Datatype, rc_mpi_double_int)
#define MPI_LONG_INT RC_PREDEF(MPI_Datatype, rc_mpi_long_int)
#define MPI_2INT RC_PREDEF(MPI_Datatype, rc_mpi_2int)
#define MPI_SHORT_INT RC_PREDEF(MPI_Datatype, rc_mpi_short_int)
#define MPI_LONG_DOUBLE_INT RC_PREDEF(MPI_Datatype, rc_mpi_long_double_int)

/* Predefined reduction operations. */
extern struct rc_op rc_mpi_max, rc_mpi_min, rc_mpi_sum, rc_mpi_prod,
	rc_mpi_land, rc_mpi_band, rc_mpi_lor, rc_mpi_bor, rc_mpi_lxor,
	rc_mpi_bxor, rc_mpi_maxloc, rc_mpi_minloc, rc_mpi_replace,
	rc_mpi_no_op;
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX RC_PREDEF(MPI_Op, rc_mpi_max)
#define MPI_MIN RC_PREDEF(MPI_Op, rc_mpi_min)
#define MPI_SUM RC_PREDEF(MPI_Op, rc_mpi_sum)
#define MPI_PROD RC_PREDEF(MPI_Op, rc_mpi_prod)
#define MPI_LAND RC_PREDEF(MPI_Op, rc_mpi_land)
#define MPI_BAND RC_PREDEF(MPI_Op, rc_mpi_band)
#define MPI_LOR RC_PREDEF(MPI_Op, rc_mpi_lor)
#define MPI_BOR RC_PREDEF(MPI_Op, rc_mpi_bor)
#define MPI_LXOR RC_PREDEF(MPI_Op, rc_mpi_lxor)
#define MPI_BXOR RC_PREDEF(MPI_Op, rc_mpi_bxor)
#define MPI_MAXLOC RC_PREDEF(MPI_Op, rc_mpi_maxloc)
#define MPI_MINLOC RC_PREDEF(MPI_Op, rc_mpi_minloc)
#define MPI_REPLACE RC_PREDEF(MPI_Op, rc_mpi_replace)
#define MPI_NO_OP RC_PREDEF(MPI_Op, rc_mpi_no_op)

/* ---- Constants --------------------------------------------------------- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BOTTOM ((void *)0)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* Thread levels */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare / MPI_Group_compare */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Communicator split types, topology kinds */
#define MPI_COMM_TYPE_SHARED 1
/* MPI-4: split by the hardware resource named in info (rcmpi knows
 * "mpi_shared_memory") or by the next level that splits (coll.h) */
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* Attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD) */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7

/* Datatype constructors' array orders and distributions */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Combiners (MPI_Type_get_envelope) */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13

/* ---- Error classes ----------------------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO 23
#define MPI_ERR_INFO_KEY 24
#define MPI_ERR_INFO_VALUE 25
#define MPI_ERR_INFO_NOKEY 26
#define MPI_ERR_SPAWN 27
#define MPI_ERR_PORT 28
#define MPI_ERR_SERVICE 29
#define MPI_ERR_NAME 30
#define MPI_ERR_WIN 31
#define MPI_ERR_SIZE 32
#define MPI_ERR_DISP 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
/* rcmpi: a peer process died or its connection failed */
#define MPI_ERR_PROC_FAILED 58
#define MPI_ERR_LASTCODE 58

/* ---- Functions ----------------------------------------------------------
 * RC_DECL declares MPI_name and its profiling twin PMPI_name.
 */
#define RC_DECL(ret, name, args) ret name args; ret P##name args

/* Environment */
RC_DECL(int, MPI_Init, (int *argc, char ***argv));
RC_DECL(int, MPI_Init_thread,
	(int *argc, char ***argv, int required, int *provided));
RC_DECL(int, MPI_Initialized, (int *flag));
RC_DECL(int, MPI_Finalized, (int *flag));
RC_DECL(int, MPI_Finalize, (void));
RC_DECL(int, MPI_Query_thread, (int *provided));
RC_DECL(int, MPI_Is_thread_main, (int *flag));
RC_DECL(int, MPI_Abort, (MPI_Comm comm, int errorcode));
RC_DECL(double, MPI_Wtime, (void));
RC_DECL(double, MPI_Wtick, (void));
RC_DECL(int, MPI_Get_processor_name, (char *name, int *resultlen));
RC_DECL(int, MPI_Get_version, (int *version, int *subversion));
RC_DECL(int, MPI_Get_library_version, (char *version, int *resultlen));

/* Errors */
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
RC_DECL(int, MPI_Error_class, (int errorcode, int *errorclass));
RC_DECL(int, MPI_Error_string, (int errorcode, char *string, int *resultlen));
RC_DECL(int, MPI_Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler eh));
RC_DECL(int, MPI_Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *eh));
RC_DECL(int, MPI_Errhandler_free, (MPI_Errhandler *eh));

/* Communicators (world and self) */
RC_DECL(int, MPI_Comm_rank, (MPI_Comm comm, int *rank));
RC_DECL(int, MPI_Comm_size, (MPI_Comm comm, int *size));

/* Communicators, groups and topologies (more) */
RC_DECL(int, MPI_Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
RC_DECL(int, MPI_Comm_split, (MPI_Comm comm, int color, int key,
			      MPI_Comm *newcomm));
RC_DECL(int, MPI_Comm_split_type, (MPI_Comm comm, int split_type, int key,
				   MPI_Info info, MPI_Comm *newcomm));
RC_DECL(int, MPI_Comm_create, (MPI_Comm comm, MPI_Group group,
			       MPI_Comm *newcomm));
RC_DECL(int, MPI_Comm_free, (MPI_Comm *comm));
RC_DECL(int, MPI_Comm_compare, (MPI_Comm comm1, MPI_Comm comm2,
				int *result));
RC_DECL(int, MPI_Comm_test_inter, (MPI_Comm comm, int *flag));
RC_DECL(int, MPI_Comm_set_name, (MPI_Comm comm, const char *comm_name));
RC_DECL(int, MPI_Comm_get_name, (MPI_Comm comm, char *comm_name,
				 int *resultlen));
RC_DECL(int, MPI_Comm_get_attr, (MPI_Comm comm, int comm_keyval,
				 void *attribute_val, int *flag));
RC_DECL(int, MPI_Comm_group, (MPI_Comm comm, MPI_Group *group));
RC_DECL(int, MPI_Group_size, (MPI_Group group, int *size));
RC_DECL(int, MPI_Group_rank, (MPI_Group group, int *rank));
RC_DECL(int, MPI_Group_incl, (MPI_Group group, int n, const int ranks[],
			      MPI_Group *newgroup));
RC_DECL(int, MPI_Group_excl, (MPI_Group group, int n, const int ranks[],
			      MPI_Group *newgroup));
RC_DECL(int, MPI_Group_range_incl, (MPI_Group group, int n,
				    int ranges[][3], MPI_Group *newgroup));
RC_DECL(int, MPI_Group_range_excl, (MPI_Group group, int n,
				    int ranges[][3], MPI_Group *newgroup));
RC_DECL(int, MPI_Group_union, (MPI_Group group1, MPI_Group group2,
			       MPI_Group *newgroup));
RC_DECL(int, MPI_Group_intersection, (MPI_Group group1, MPI_Group group2,
				      MPI_Group *newgroup));
RC_DECL(int, MPI_Group_difference, (MPI_Group group1, MPI_Group group2,
				    MPI_Group *newgroup));
RC_DECL(int, MPI_Group_translate_ranks, (MPI_Group group1, int n,
					 const int ranks1[], MPI_Group group2,
					 int ranks2[]));
RC_DECL(int, MPI_Group_compare, (MPI_Group group1, MPI_Group group2,
				 int *result));
RC_DECL(int, MPI_Group_free, (MPI_Group *group));
RC_DECL(int, MPI_Dims_create, (int nnodes, int ndims, int dims[]));
RC_DECL(int, MPI_Cart_create, (MPI_Comm comm_old, int ndims,
			       const int dims[], const int periods[],
			       int reorder, MPI_Comm *comm_cart));
RC_DECL(int, MPI_Cart_sub, (MPI_Comm comm, const int remain_dims[],
			    MPI_Comm *newcomm));
RC_DECL(int, MPI_Cart_coords, (MPI_Comm comm, int rank, int maxdims,
			       int coords[]));
RC_DECL(int, MPI_Cart_rank, (MPI_Comm comm, const int coords[],
			     int *rank));
RC_DECL(int, MPI_Cart_shift, (MPI_Comm comm, int direction, int disp,
			      int *rank_source, int *rank_dest));
RC_DECL(int, MPI_Cart_get, (MPI_Comm comm, int maxdims, int dims[],
			    int periods[], int coords[]));
RC_DECL(int, MPI_Cartdim_get, (MPI_Comm comm, int *ndims));
RC_DECL(int, MPI_Topo_test, (MPI_Comm comm, int *status));

/* Point-to-point */
RC_DECL(int, MPI_Send, (const void *buf, int count, MPI_Datatype datatype,
			int dest, int tag, MPI_Comm comm));
RC_DECL(int, MPI_Ssend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm));
RC_DECL(int, MPI_Rsend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm));
RC_DECL(int, MPI_Recv, (void *buf, int count, MPI_Datatype datatype,
			int source, int tag, MPI_Comm comm,
			MPI_Status *status));
RC_DECL(int, MPI_Isend, (const void *buf, int count, MPI_Datatype datatype,
			 int dest, int tag, MPI_Comm comm,
			 MPI_Request *request));
RC_DECL(int, MPI_Issend, (const void *buf, int count, MPI_Datatype datatype,
			  int dest, int tag, MPI_Comm comm,
			  MPI_Request *request));
RC_DECL(int, MPI_Irsend, (const void *buf, int count, MPI_Datatype datatype,
			  int dest, int tag, MPI_Comm comm,
			  MPI_Request *request));
RC_DECL(int, MPI_Irecv, (void *buf, int count, MPI_Datatype datatype,
			 int source, int tag, MPI_Comm comm,
			 MPI_Request *request));
RC_DECL(int, MPI_Sendrecv,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
	 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
	 int source, int recvtag, MPI_Comm comm, MPI_Status *status));
RC_DECL(int, MPI_Sendrecv_replace,
	(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
	 int source, int recvtag, MPI_Comm comm, MPI_Status *status));
RC_DECL(int, MPI_Send_init, (const void *buf, int count,
			     MPI_Datatype datatype, int dest, int tag,
			     MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ssend_init, (const void *buf, int count,
			      MPI_Datatype datatype, int dest, int tag,
			      MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Rsend_init, (const void *buf, int count,
			      MPI_Datatype datatype, int dest, int tag,
			      MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Recv_init, (void *buf, int count, MPI_Datatype datatype,
			     int source, int tag, MPI_Comm comm,
			     MPI_Request *request));
RC_DECL(int, MPI_Start, (MPI_Request *request));
RC_DECL(int, MPI_Startall, (int count, MPI_Request requests[]));
RC_DECL(int, MPI_Probe, (int source, int tag, MPI_Comm comm,
			 MPI_Status *status));
RC_DECL(int, MPI_Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
			  MPI_Status *status));
RC_DECL(int, MPI_Mprobe, (int source, int tag, MPI_Comm comm,
			  MPI_Message *message, MPI_Status *status));
RC_DECL(int, MPI_Improbe, (int source, int tag, MPI_Comm comm, int *flag,
			   MPI_Message *message, MPI_Status *status));
RC_DECL(int, MPI_Mrecv, (void *buf, int count, MPI_Datatype datatype,
			 MPI_Message *message, MPI_Status *status));
RC_DECL(int, MPI_Imrecv, (void *buf, int count, MPI_Datatype datatype,
			  MPI_Message *message, MPI_Request *request));
RC_DECL(int, MPI_Cancel, (MPI_Request *request));
RC_DECL(int, MPI_Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
RC_DECL(int, MPI_Free_mem, (void *base));

/* Requests */
RC_DECL(int, MPI_Wait, (MPI_Request *request, MPI_Status *status));
RC_DECL(int, MPI_Test, (MPI_Request *request, int *flag,
			MPI_Status *status));
RC_DECL(int, MPI_Waitall, (int count, MPI_Request requests[],
			   MPI_Status statuses[]));
RC_DECL(int, MPI_Testall, (int count, MPI_Request requests[], int *flag,
			   MPI_Status statuses[]));
RC_DECL(int, MPI_Waitany, (int count, MPI_Request requests[], int *index,
			   MPI_Status *status));
RC_DECL(int, MPI_Testany, (int count, MPI_Request requests[], int *index,
			   int *flag, MPI_Status *status));
RC_DECL(int, MPI_Waitsome, (int incount, MPI_Request requests[],
			    int *outcount, int indices[],
			    MPI_Status statuses[]));
RC_DECL(int, MPI_Testsome, (int incount, MPI_Request requests[],
			    int *outcount, int indices[],
			    MPI_Status statuses[]));
RC_DECL(int, MPI_Request_free, (MPI_Request *request));
RC_DECL(int, MPI_Request_get_status, (MPI_Request request, int *flag,
				      MPI_Status *status));
RC_DECL(int, MPI_Test_cancelled, (const MPI_Status *status, int *flag));

/* Datatypes and packing */
RC_DECL(int, MPI_Type_contiguous,
	(int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_vector,
	(int count, int blocklength, int stride, MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_hvector,
	(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_indexed,
	(int count, const int array_of_blocklengths[],
	 const int array_of_displacements[], MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_hindexed,
	(int count, const int array_of_blocklengths[],
	 const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_indexed_block,
	(int count, int blocklength, const int array_of_displacements[],
	 MPI_Datatype oldtype, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_hindexed_block,
	(int count, int blocklength, const MPI_Aint array_of_displacements[],
	 MPI_Datatype oldtype, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_struct,
	(int count, const int array_of_blocklengths[],
	 const MPI_Aint array_of_displacements[],
	 const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_subarray,
	(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
	 const int array_of_starts[], int order, MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_resized,
	(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_commit, (MPI_Datatype *datatype));
RC_DECL(int, MPI_Type_free, (MPI_Datatype *datatype));
RC_DECL(int, MPI_Type_size, (MPI_Datatype datatype, int *size));
RC_DECL(int, MPI_Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
RC_DECL(int, MPI_Type_get_extent,
	(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
RC_DECL(int, MPI_Type_get_extent_x,
	(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
RC_DECL(int, MPI_Type_get_true_extent,
	(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
RC_DECL(int, MPI_Type_get_true_extent_x,
	(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
RC_DECL(int, MPI_Type_get_name,
	(MPI_Datatype datatype, char *type_name, int *resultlen));
RC_DECL(int, MPI_Type_set_name,
	(MPI_Datatype datatype, const char *type_name));
RC_DECL(int, MPI_Type_get_envelope,
	(MPI_Datatype datatype, int *num_integers, int *num_addresses,
	 int *num_datatypes, int *combiner));
RC_DECL(int, MPI_Get_address, (const void *location, MPI_Aint *address));
RC_DECL(MPI_Aint, MPI_Aint_add, (MPI_Aint base, MPI_Aint disp));
RC_DECL(MPI_Aint, MPI_Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
RC_DECL(int, MPI_Get_count,
	(const MPI_Status *status, MPI_Datatype datatype, int *count));
RC_DECL(int, MPI_Get_elements,
	(const MPI_Status *status, MPI_Datatype datatype, int *count));
RC_DECL(int, MPI_Get_elements_x,
	(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
RC_DECL(int, MPI_Pack,
	(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
	 int outsize, int *position, MPI_Comm comm));
RC_DECL(int, MPI_Unpack,
	(const void *inbuf, int insize, int *position, void *outbuf,
	 int outcount, MPI_Datatype datatype, MPI_Comm comm));
RC_DECL(int, MPI_Pack_size,
	(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));

/* Reduction operations */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
			       MPI_Datatype *datatype);
RC_DECL(int, MPI_Op_create,
	(MPI_User_function *user_fn, int commute, MPI_Op *op));
RC_DECL(int, MPI_Op_free, (MPI_Op *op));
RC_DECL(int, MPI_Op_commutative, (MPI_Op op, int *commute));
RC_DECL(int, MPI_Reduce_local,
	(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
	 MPI_Op op));

/* Collectives */
RC_DECL(int, MPI_Barrier, (MPI_Comm comm));
RC_DECL(int, MPI_Bcast, (void *buffer, int count, MPI_Datatype datatype,
			 int root, MPI_Comm comm));
RC_DECL(int, MPI_Reduce, (const void *sendbuf, void *recvbuf, int count,
			  MPI_Datatype datatype, MPI_Op op, int root,
			  MPI_Comm comm));
RC_DECL(int, MPI_Allreduce, (const void *sendbuf, void *recvbuf, int count,
			     MPI_Datatype datatype, MPI_Op op,
			     MPI_Comm comm));
RC_DECL(int, MPI_Gather, (const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, int root, MPI_Comm comm));
RC_DECL(int, MPI_Gatherv, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf,
			   const int recvcounts[], const int displs[],
			   MPI_Datatype recvtype, int root, MPI_Comm comm));
RC_DECL(int, MPI_Scatter, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf,
			   int recvcount, MPI_Datatype recvtype, int root,
			   MPI_Comm comm));
RC_DECL(int, MPI_Scatterv, (const void *sendbuf, const int sendcounts[],
			    const int displs[], MPI_Datatype sendtype,
			    void *recvbuf, int recvcount,
			    MPI_Datatype recvtype, int root, MPI_Comm comm));
RC_DECL(int, MPI_Allgather, (const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     int recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm));
RC_DECL(int, MPI_Allgatherv, (const void *sendbuf, int sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, MPI_Comm comm));
RC_DECL(int, MPI_Alltoall, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm));
RC_DECL(int, MPI_Alltoallv, (const void *sendbuf, const int sendcounts[],
			     const int sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[],
			     const int rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm));
RC_DECL(int, MPI_Reduce_scatter, (const void *sendbuf, void *recvbuf,
				  const int recvcounts[],
				  MPI_Datatype datatype, MPI_Op op,
				  MPI_Comm comm));
RC_DECL(int, MPI_Reduce_scatter_block, (const void *sendbuf, void *recvbuf,
					int recvcount, MPI_Datatype datatype,
					MPI_Op op, MPI_Comm comm));
RC_DECL(int, MPI_Scan, (const void *sendbuf, void *recvbuf, int count,
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
RC_DECL(int, MPI_Exscan, (const void *sendbuf, void *recvbuf, int count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
RC_DECL(int, MPI_Ibarrier, (MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ibcast, (void *buffer, int count, MPI_Datatype datatype,
			  int root, MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ireduce, (const void *sendbuf, void *recvbuf, int count,
			   MPI_Datatype datatype, MPI_Op op, int root,
			   MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Iallreduce, (const void *sendbuf, void *recvbuf,
			      int count, MPI_Datatype datatype, MPI_Op op,
			      MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Igather, (const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf,
			   int recvcount, MPI_Datatype recvtype, int root,
			   MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Igatherv, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    const int recvcounts[], const int displs[],
			    MPI_Datatype recvtype, int root, MPI_Comm comm,
			    MPI_Request *request));
RC_DECL(int, MPI_Iscatter, (const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype, int root,
			    MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Iscatterv, (const void *sendbuf, const int sendcounts[],
			     const int displs[], MPI_Datatype sendtype,
			     void *recvbuf, int recvcount,
			     MPI_Datatype recvtype, int root, MPI_Comm comm,
			     MPI_Request *request));
RC_DECL(int, MPI_Iallgather, (const void *sendbuf, int sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      int recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Iallgatherv, (const void *sendbuf, int sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       const int recvcounts[], const int displs[],
			       MPI_Datatype recvtype, MPI_Comm comm,
			       MPI_Request *request));
RC_DECL(int, MPI_Ialltoall, (const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     int recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ialltoallv, (const void *sendbuf, const int sendcounts[],
			      const int sdispls[], MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[],
			      const int rdispls[], MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ireduce_scatter, (const void *sendbuf, void *recvbuf,
				   const int recvcounts[],
				   MPI_Datatype datatype, MPI_Op op,
				   MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Ireduce_scatter_block, (const void *sendbuf,
					 void *recvbuf, int recvcount,
					 MPI_Datatype datatype, MPI_Op op,
					 MPI_Comm comm,
					 MPI_Request *request));
RC_DECL(int, MPI_Iscan, (const void *sendbuf, void *recvbuf, int count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Request *request));
RC_DECL(int, MPI_Iexscan, (const void *sendbuf, void *recvbuf, int count,
			   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			   MPI_Request *request));

/* ---- Datatypes, the rest of the chapter (issue 13) -----------------------
 * Named types for Fortran and C++ data, usable from C (sizes: Fortran's
 * default INTEGER, REAL and LOGICAL are 4 bytes, as with gfortran and
 * ifort). The optional kinds this platform has no C type for are
 * MPI_DATATYPE_NULL, as the standard allows: MPI_REAL16 and MPI_COMPLEX32
 * (Fortran's REAL*16 is IEEE binary128, which is not C's long double on
 * x86-64), MPI_REAL2, MPI_COMPLEX4 and MPI_INTEGER16.
 */
extern struct rc_dtype rc_mpi_character, rc_mpi_logical, rc_mpi_integer,
	rc_mpi_real, rc_mpi_double_precision, rc_mpi_complex,
	rc_mpi_double_complex, rc_mpi_integer1, rc_mpi_integer2,
	rc_mpi_integer4, rc_mpi_integer8, rc_mpi_real4, rc_mpi_real8,
	rc_mpi_complex8, rc_mpi_complex16, rc_mpi_2integer, rc_mpi_2real,
	rc_mpi_2double_precision, rc_mpi_cxx_bool, rc_mpi_cxx_float_complex,
	rc_mpi_cxx_double_complex, rc_mpi_cxx_long_double_complex;

#define MPI_CHARACTER RC_PREDEF(MPI_Datatype, rc_mpi_character)
#define MPI_LOGICAL RC_PREDEF(MPI_Datatype, rc_mpi_logical)
#define MPI_INTEGER RC_PREDEF(MPI_Datatype, rc_mpi_integer)
#define MPI_REAL RC_PREDEF(MPI_Datatype, rc_mpi_real)
#define MPI_DOUBLE_PRECISION RC_PREDEF(MPI_Datatype, rc_mpi_double_precision)
#define MPI_COMPLEX RC_PREDEF(MPI_Datatype, rc_mpi_complex)
#define MPI_DOUBLE_COMPLEX RC_PREDEF(MPI_Datatype, rc_mpi_double_complex)
#define MPI_INTEGER1 RC_PREDEF(MPI_Datatype, rc_mpi_integer1)
#define MPI_INTEGER2 RC_PREDEF(MPI_Datatype, rc_mpi_integer2)
#define MPI_INTEGER4 RC_PREDEF(MPI_Datatype, rc_mpi_integer4)
#define MPI_INTEGER8 RC_PREDEF(MPI_Datatype, rc_mpi_integer8)
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL4 RC_PREDEF(MPI_Datatype, rc_mpi_real4)
#define MPI_REAL8 RC_PREDEF(MPI_Datatype, rc_mpi_real8)
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#define MPI_COMPLEX8 RC_PREDEF(MPI_Datatype, rc_mpi_complex8)
#define MPI_COMPLEX16 RC_PREDEF(MPI_Datatype, rc_mpi_complex16)
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_2INTEGER RC_PREDEF(MPI_Datatype, rc_mpi_2integer)
#define MPI_2REAL RC_PREDEF(MPI_Datatype, rc_mpi_2real)
#define MPI_2DOUBLE_PRECISION RC_PREDEF(MPI_Datatype, rc_mpi_2double_precision)
#define MPI_CXX_BOOL RC_PREDEF(MPI_Datatype, rc_mpi_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX RC_PREDEF(MPI_Datatype, rc_mpi_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX \
	RC_PREDEF(MPI_Datatype, rc_mpi_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX \
	RC_PREDEF(MPI_Datatype, rc_mpi_cxx_long_double_complex)

/* Combiners of the types MPI_Type_create_f90_* return (their contents
 * are p and r, or r) */
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16

/* MPI_Type_match_size: a predefined Fortran type of a class and size
 * (MPI_REAL4/8, MPI_INTEGER1/2/4/8, MPI_COMPLEX8/16) */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
RC_DECL(int, MPI_Type_match_size,
	(int typeclass, int size, MPI_Datatype *datatype));
/* Fortran's SELECTED_REAL_KIND(p, r) / SELECTED_INT_KIND(r) as MPI
 * types: predefined (not to be freed), one handle per (p, r) */
RC_DECL(int, MPI_Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_f90_complex,
	(int p, int r, MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_create_f90_integer, (int r, MPI_Datatype *newtype));
/* MPI-4.1: the pair type for MPI_MAXLOC/MPI_MINLOC of (value, index)
 * types, MPI_DATATYPE_NULL when there is none */
RC_DECL(int, MPI_Type_get_value_index,
	(MPI_Datatype value_type, MPI_Datatype index_type,
	 MPI_Datatype *pair_type));

/* A block or cyclic distribution of an array over a process grid
 * (MPI_DISTRIBUTE_* and MPI_ORDER_* above). */
RC_DECL(int, MPI_Type_create_darray,
	(int size, int rank, int ndims, const int array_of_gsizes[],
	 const int array_of_distribs[], const int array_of_dargs[],
	 const int array_of_psizes[], int order, MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
/* Packing in the "external32" representation (big-endian, IEEE, the
 * standard's fixed sizes); MPI_ERR_CONVERSION for a value that does not
 * fit, MPI_ERR_UNSUPPORTED_DATAREP for another representation. */
RC_DECL(int, MPI_Pack_external,
	(const char datarep[], const void *inbuf, int incount,
	 MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
	 MPI_Aint *position));
RC_DECL(int, MPI_Unpack_external,
	(const char datarep[], const void *inbuf, MPI_Aint insize,
	 MPI_Aint *position, void *outbuf, int outcount,
	 MPI_Datatype datatype));
RC_DECL(int, MPI_Pack_external_size,
	(const char datarep[], int incount, MPI_Datatype datatype,
	 MPI_Aint *size));

/* Filling a status (generalized requests, layered libraries):
 * MPI_Get_elements/_count and MPI_Test_cancelled then report these. */
RC_DECL(int, MPI_Status_set_elements,
	(MPI_Status *status, MPI_Datatype datatype, int count));
RC_DECL(int, MPI_Status_set_elements_x,
	(MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
RC_DECL(int, MPI_Status_set_cancelled, (MPI_Status *status, int flag));

/* MPI_Type_get_contents: the arguments of the call that made a derived
 * datatype (combiners above and below); derived datatypes in them are new
 * references to free, predefined ones are not. */
RC_DECL(int, MPI_Type_get_contents,
	(MPI_Datatype datatype, int max_integers, int max_addresses,
	 int max_datatypes, int array_of_integers[],
	 MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]));

/* ---- Generalized requests (issue 13; MPI-3.1 section 12.2) --------------
 * A request whose operation the program carries out itself: it completes
 * when the program calls MPI_Grequest_complete, and then every Wait/Test
 * call, MPI_Request_free and MPI_Request_get_status take it like any
 * other request. query_fn fills the status when a call completes it (or
 * MPI_Request_get_status looks at it), free_fn runs once when it is freed,
 * cancel_fn on MPI_Cancel (complete: whether MPI_Grequest_complete was
 * already called). An error code a callback returns is the code of the MPI
 * call that ran it.
 */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
RC_DECL(int, MPI_Grequest_start,
	(MPI_Grequest_query_function *query_fn,
	 MPI_Grequest_free_function *free_fn,
	 MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
	 MPI_Request *request));
RC_DECL(int, MPI_Grequest_complete, (MPI_Request request));

/* ---- MPI-1 datatype names that MPI-3 removed (issue 13) -----------------
 * Declared by default, as MPICH does, so that old programs build
 * unmodified (include/README.md says why); define RCMPI_NO_MPI1_COMPAT
 * before including mpi.h to hide them. Thin aliases of the MPI-2 calls:
 * MPI_Address = MPI_Get_address, MPI_Type_hvector/hindexed/struct =
 * MPI_Type_create_hvector/hindexed/struct, MPI_Type_extent/lb/ub =
 * MPI_Type_get_extent's parts. MPI_LB and MPI_UB mark sticky bounds inside
 * MPI_Type_struct. The *_INTEGER combiners belonged to the Fortran forms
 * and are never returned from C; they are here for old decoders.
 */
#ifndef RCMPI_NO_MPI1_COMPAT
extern struct rc_dtype rc_mpi_lb, rc_mpi_ub;
#define MPI_LB RC_PREDEF(MPI_Datatype, rc_mpi_lb)
#define MPI_UB RC_PREDEF(MPI_Datatype, rc_mpi_ub)
#define MPI_COMBINER_HVECTOR_INTEGER 17
#define MPI_COMBINER_HINDEXED_INTEGER 18
#define MPI_COMBINER_STRUCT_INTEGER 19
RC_DECL(int, MPI_Address, (const void *location, MPI_Aint *address));
RC_DECL(int, MPI_Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
RC_DECL(int, MPI_Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
RC_DECL(int, MPI_Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
RC_DECL(int, MPI_Type_hvector,
	(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_hindexed,
	(int count, const int array_of_blocklengths[],
	 const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
	 MPI_Datatype *newtype));
RC_DECL(int, MPI_Type_struct,
	(int count, const int array_of_blocklengths[],
	 const MPI_Aint array_of_displacements[],
	 const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
#endif
/* ---- MPI-1 error handler names that MPI-3 removed (issue 13) ------------
 * Same rule as above (RCMPI_NO_MPI1_COMPAT hides them): thin aliases of
 * MPI_Comm_create_errhandler, _set_errhandler and _get_errhandler (which
 * returns a new reference, to free with MPI_Errhandler_free, as MPI-1's
 * did); MPI_Handler_function is the communicator handler's type.
 */
#ifndef RCMPI_NO_MPI1_COMPAT
typedef MPI_Comm_errhandler_function MPI_Handler_function;
RC_DECL(int, MPI_Errhandler_create,
	(MPI_Handler_function *function, MPI_Errhandler *errhandler));
RC_DECL(int, MPI_Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
RC_DECL(int, MPI_Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));
#endif
/* ---- Communicator services (issue 12): handles, info, attributes,
 * error handlers. -------------------------------------------------------
 * Handle conversion: the MPI_Fint of a handle is its index in its kind's
 * table (0 is the null handle; predefined objects have fixed low
 * indices). The Fortran status is MPI_F_STATUS_SIZE integers. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
/* Fortran's MPI_STATUS(ES)_IGNORE as C sees them (MPI-3.1 17.2.5): for C
 * code that wraps Fortran calls to compare against; addresses of no real
 * status (MPI_Status_c2f / _f2c refuse them). */
extern MPI_Fint rc_mpi_f_status_ignore[MPI_F_STATUS_SIZE],
	rc_mpi_f_statuses_ignore[MPI_F_STATUS_SIZE];
#define MPI_F_STATUS_IGNORE (rc_mpi_f_status_ignore)
#define MPI_F_STATUSES_IGNORE (rc_mpi_f_statuses_ignore)
RC_DECL(MPI_Fint, MPI_Comm_c2f, (MPI_Comm comm));
RC_DECL(MPI_Comm, MPI_Comm_f2c, (MPI_Fint comm));
RC_DECL(MPI_Fint, MPI_Group_c2f, (MPI_Group group));
RC_DECL(MPI_Group, MPI_Group_f2c, (MPI_Fint group));
RC_DECL(MPI_Fint, MPI_Type_c2f, (MPI_Datatype datatype));
RC_DECL(MPI_Datatype, MPI_Type_f2c, (MPI_Fint datatype));
RC_DECL(MPI_Fint, MPI_Request_c2f, (MPI_Request request));
RC_DECL(MPI_Request, MPI_Request_f2c, (MPI_Fint request));
RC_DECL(MPI_Fint, MPI_Op_c2f, (MPI_Op op));
RC_DECL(MPI_Op, MPI_Op_f2c, (MPI_Fint op));
RC_DECL(MPI_Fint, MPI_Errhandler_c2f, (MPI_Errhandler errhandler));
RC_DECL(MPI_Errhandler, MPI_Errhandler_f2c, (MPI_Fint errhandler));
RC_DECL(MPI_Fint, MPI_Message_c2f, (MPI_Message message));
RC_DECL(MPI_Message, MPI_Message_f2c, (MPI_Fint message));

/* Info objects (MPI_INFO_NULL is with the other null handles): keys are
 * at most MPI_MAX_INFO_KEY - 1 characters, values MPI_MAX_INFO_VAL - 1. */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
extern struct rc_info rc_mpi_info_env;
#define MPI_INFO_ENV RC_PREDEF(MPI_Info, rc_mpi_info_env)
RC_DECL(int, MPI_Info_create, (MPI_Info * info));
RC_DECL(int, MPI_Info_set, (MPI_Info info, const char *key, const char *value));
RC_DECL(int, MPI_Info_delete, (MPI_Info info, const char *key));
RC_DECL(int, MPI_Info_get,
	(MPI_Info info, const char *key, int valuelen, char *value, int *flag));
RC_DECL(int, MPI_Info_get_valuelen,
	(MPI_Info info, const char *key, int *valuelen, int *flag));
RC_DECL(int, MPI_Info_get_string,
	(MPI_Info info, const char *key, int *buflen, char *value, int *flag));
RC_DECL(int, MPI_Info_get_nkeys, (MPI_Info info, int *nkeys));
RC_DECL(int, MPI_Info_get_nthkey, (MPI_Info info, int n, char *key));
RC_DECL(int, MPI_Info_dup, (MPI_Info info, MPI_Info *newinfo));
RC_DECL(int, MPI_Info_free, (MPI_Info * info));
/* MPI-4: a new info built as MPI_INFO_ENV is (after MPI_Init) */
RC_DECL(int, MPI_Info_create_env, (int argc, char *argv[], MPI_Info *info));
RC_DECL(MPI_Fint, MPI_Info_c2f, (MPI_Info info));
RC_DECL(MPI_Info, MPI_Info_f2c, (MPI_Fint info));
/* Communicator hints; MPI_Comm_get_parent is always MPI_COMM_NULL and
 * MPI_Comm_disconnect is a barrier and MPI_Comm_free (no dynamic
 * processes). */
RC_DECL(int, MPI_Comm_set_info, (MPI_Comm comm, MPI_Info info));
RC_DECL(int, MPI_Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
RC_DECL(int, MPI_Comm_dup_with_info,
	(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
RC_DECL(int, MPI_Comm_idup_with_info,
	(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
	 MPI_Request *request));
RC_DECL(int, MPI_Comm_get_parent, (MPI_Comm * parent));
RC_DECL(int, MPI_Comm_disconnect, (MPI_Comm * comm));

/* Attribute caching: communicators and datatypes (the deprecated MPI-1
 * names included). The predefined callbacks are functions of librcmpi;
 * NULL is accepted for "no copy" and "no delete" too. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
					void *extra_state,
					void *attribute_val_in,
					void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
					  void *attribute_val,
					  void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
					void *extra_state,
					void *attribute_val_in,
					void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype,
					  int type_keyval, void *attribute_val,
					  void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
MPI_Comm_copy_attr_function rc_mpi_comm_null_copy_fn, rc_mpi_comm_dup_fn;
MPI_Comm_delete_attr_function rc_mpi_comm_null_delete_fn;
MPI_Type_copy_attr_function rc_mpi_type_null_copy_fn, rc_mpi_type_dup_fn;
MPI_Type_delete_attr_function rc_mpi_type_null_delete_fn;
#define MPI_COMM_NULL_COPY_FN rc_mpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN rc_mpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN rc_mpi_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN rc_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN rc_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN rc_mpi_type_null_delete_fn
#define MPI_NULL_COPY_FN rc_mpi_comm_null_copy_fn
#define MPI_DUP_FN rc_mpi_comm_dup_fn
#define MPI_NULL_DELETE_FN rc_mpi_comm_null_delete_fn
RC_DECL(int, MPI_Comm_create_keyval,
	(MPI_Comm_copy_attr_function * comm_copy_attr_fn,
	 MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
	 void *extra_state));
RC_DECL(int, MPI_Comm_free_keyval, (int *comm_keyval));
RC_DECL(int, MPI_Comm_set_attr,
	(MPI_Comm comm, int comm_keyval, void *attribute_val));
RC_DECL(int, MPI_Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
RC_DECL(int, MPI_Type_create_keyval,
	(MPI_Type_copy_attr_function * type_copy_attr_fn,
	 MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
	 void *extra_state));
RC_DECL(int, MPI_Type_free_keyval, (int *type_keyval));
RC_DECL(int, MPI_Type_set_attr,
	(MPI_Datatype datatype, int type_keyval, void *attribute_val));
RC_DECL(int, MPI_Type_get_attr,
	(MPI_Datatype datatype, int type_keyval, void *attribute_val,
	 int *flag));
RC_DECL(int, MPI_Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
RC_DECL(int, MPI_Keyval_create,
	(MPI_Copy_function * copy_fn, MPI_Delete_function *delete_fn,
	 int *keyval, void *extra_state));
RC_DECL(int, MPI_Keyval_free, (int *keyval));
RC_DECL(int, MPI_Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
RC_DECL(int, MPI_Attr_get,
	(MPI_Comm comm, int keyval, void *attribute_val, int *flag));
RC_DECL(int, MPI_Attr_delete, (MPI_Comm comm, int keyval));

/* Error handlers of the program's own, error classes and codes; every
 * handler is reference counted (MPI_Errhandler_free leaves it working
 * where it is attached). MPI_Pcontrol is a hook for profiling tools. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
RC_DECL(int, MPI_Comm_create_errhandler,
	(MPI_Comm_errhandler_function * comm_errhandler_fn,
	 MPI_Errhandler *errhandler));
RC_DECL(int, MPI_Comm_call_errhandler, (MPI_Comm comm, int errorcode));
RC_DECL(int, MPI_Add_error_class, (int *errorclass));
RC_DECL(int, MPI_Add_error_code, (int errorclass, int *errorcode));
RC_DECL(int, MPI_Add_error_string, (int errorcode, const char *string));
RC_DECL(int, MPI_Pcontrol, (const int level, ...));

RC_DECL(int, MPI_Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
RC_DECL(int, MPI_Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));
/* ---- Communicator creation, intercommunicators, process topologies and
 * neighbourhood collectives (issue 12, the communicator part) ------------ */
RC_DECL(int, MPI_Comm_idup,
	(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
RC_DECL(int, MPI_Comm_create_group,
	(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
RC_DECL(int, MPI_Intercomm_create,
	(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
	 int remote_leader, int tag, MPI_Comm *newintercomm));
RC_DECL(int, MPI_Intercomm_merge,
	(MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
RC_DECL(int, MPI_Comm_remote_size, (MPI_Comm comm, int *size));
RC_DECL(int, MPI_Comm_remote_group, (MPI_Comm comm, MPI_Group *group));

/* Graph and distributed-graph topologies (rcmpi never reorders) */
/* sentinel addresses inside librcmpi (real objects, so compilers see
 * valid arrays where programs pass them) */
extern int rc_mpi_unweighted[1], rc_mpi_weights_empty[1];
#define MPI_UNWEIGHTED (rc_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY (rc_mpi_weights_empty)
RC_DECL(int, MPI_Graph_create,
	(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
	 int reorder, MPI_Comm *comm_graph));
RC_DECL(int, MPI_Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
RC_DECL(int, MPI_Graph_get,
	(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
RC_DECL(int, MPI_Graph_neighbors_count,
	(MPI_Comm comm, int rank, int *nneighbors));
RC_DECL(int, MPI_Graph_neighbors,
	(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
RC_DECL(int, MPI_Graph_map,
	(MPI_Comm comm, int nnodes, const int index[], const int edges[],
	 int *newrank));
RC_DECL(int, MPI_Cart_map,
	(MPI_Comm comm, int ndims, const int dims[], const int periods[],
	 int *newrank));
RC_DECL(int, MPI_Dist_graph_create,
	(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
	 const int destinations[], const int weights[], MPI_Info info,
	 int reorder, MPI_Comm *comm_dist_graph));
RC_DECL(int, MPI_Dist_graph_create_adjacent,
	(MPI_Comm comm_old, int indegree, const int sources[],
	 const int sourceweights[], int outdegree, const int destinations[],
	 const int destweights[], MPI_Info info, int reorder,
	 MPI_Comm *comm_dist_graph));
RC_DECL(int, MPI_Dist_graph_neighbors_count,
	(MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
RC_DECL(int, MPI_Alltoallw,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
	 const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
RC_DECL(int, MPI_Ialltoallw,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
	 const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
	 MPI_Request *request));

/* Neighbourhood collectives (on communicators with a process topology) */
RC_DECL(int, MPI_Neighbor_allgather,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
RC_DECL(int, MPI_Ineighbor_allgather,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Request *request));
RC_DECL(int, MPI_Neighbor_allgatherv,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, const int recvcounts[], const int displs[],
	 MPI_Datatype recvtype, MPI_Comm comm));
RC_DECL(int, MPI_Ineighbor_allgatherv,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, const int recvcounts[], const int displs[],
	 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoall,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
RC_DECL(int, MPI_Ineighbor_alltoall,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoallv,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
RC_DECL(int, MPI_Ineighbor_alltoallv,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoallw,
	(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
	 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
	 MPI_Comm comm));
RC_DECL(int, MPI_Ineighbor_alltoallw,
	(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
	 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
	 MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Dist_graph_neighbors,
	(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
	 int maxoutdegree, int destinations[], int destweights[]));

/* ---- One-sided communication (MPI-3.1 chapter 11; rma/) ------------------
 * Windows, their flavours and memory models, the asserts of the
 * synchronisation calls, lock types and the predefined window attributes.
 */
typedef struct rc_win *MPI_Win;
#define MPI_WIN_NULL ((MPI_Win)0)

#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4

#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

/* MPI_Win_get_attr keys: predefined window keyvals, after the
 * communicator ones (MPI_TAG_UB ... MPI_LASTUSEDCODE) */
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12

RC_DECL(int, MPI_Win_create, (void *base, MPI_Aint size, int disp_unit,
			      MPI_Info info, MPI_Comm comm, MPI_Win *win));
RC_DECL(int, MPI_Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
				MPI_Comm comm, void *baseptr, MPI_Win *win));
RC_DECL(int, MPI_Win_allocate_shared, (MPI_Aint size, int disp_unit,
				       MPI_Info info, MPI_Comm comm,
				       void *baseptr, MPI_Win *win));
RC_DECL(int, MPI_Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size,
				    int *disp_unit, void *baseptr));
RC_DECL(int, MPI_Win_create_dynamic, (MPI_Info info, MPI_Comm comm,
				      MPI_Win *win));
RC_DECL(int, MPI_Win_attach, (MPI_Win win, void *base, MPI_Aint size));
RC_DECL(int, MPI_Win_detach, (MPI_Win win, const void *base));
RC_DECL(int, MPI_Win_free, (MPI_Win *win));

RC_DECL(int, MPI_Put, (const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, int target_rank,
		       MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Win win));
RC_DECL(int, MPI_Get, (void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, int target_rank,
		       MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Win win));
RC_DECL(int, MPI_Accumulate, (const void *origin_addr, int origin_count,
			      MPI_Datatype origin_datatype, int target_rank,
			      MPI_Aint target_disp, int target_count,
			      MPI_Datatype target_datatype, MPI_Op op,
			      MPI_Win win));
RC_DECL(int, MPI_Get_accumulate, (const void *origin_addr, int origin_count,
				  MPI_Datatype origin_datatype,
				  void *result_addr, int result_count,
				  MPI_Datatype result_datatype,
				  int target_rank, MPI_Aint target_disp,
				  int target_count,
				  MPI_Datatype target_datatype, MPI_Op op,
				  MPI_Win win));
RC_DECL(int, MPI_Fetch_and_op, (const void *origin_addr, void *result_addr,
				MPI_Datatype datatype, int target_rank,
				MPI_Aint target_disp, MPI_Op op, MPI_Win win));
RC_DECL(int, MPI_Compare_and_swap, (const void *origin_addr,
				    const void *compare_addr,
				    void *result_addr, MPI_Datatype datatype,
				    int target_rank, MPI_Aint target_disp,
				    MPI_Win win));
RC_DECL(int, MPI_Rput, (const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, int target_rank,
			MPI_Aint target_disp, int target_count,
			MPI_Datatype target_datatype, MPI_Win win,
			MPI_Request *request));
RC_DECL(int, MPI_Rget, (void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, int target_rank,
			MPI_Aint target_disp, int target_count,
			MPI_Datatype target_datatype, MPI_Win win,
			MPI_Request *request));
RC_DECL(int, MPI_Raccumulate, (const void *origin_addr, int origin_count,
			       MPI_Datatype origin_datatype, int target_rank,
			       MPI_Aint target_disp, int target_count,
			       MPI_Datatype target_datatype, MPI_Op op,
			       MPI_Win win, MPI_Request *request));
RC_DECL(int, MPI_Rget_accumulate, (const void *origin_addr,
				   int origin_count,
				   MPI_Datatype origin_datatype,
				   void *result_addr, int result_count,
				   MPI_Datatype result_datatype,
				   int target_rank, MPI_Aint target_disp,
				   int target_count,
				   MPI_Datatype target_datatype, MPI_Op op,
				   MPI_Win win, MPI_Request *request));

RC_DECL(int, MPI_Win_fence, (int assert, MPI_Win win));
RC_DECL(int, MPI_Win_post, (MPI_Group group, int assert, MPI_Win win));
RC_DECL(int, MPI_Win_start, (MPI_Group group, int assert, MPI_Win win));
RC_DECL(int, MPI_Win_complete, (MPI_Win win));
RC_DECL(int, MPI_Win_wait, (MPI_Win win));
RC_DECL(int, MPI_Win_test, (MPI_Win win, int *flag));
RC_DECL(int, MPI_Win_lock, (int lock_type, int rank, int assert,
			    MPI_Win win));
RC_DECL(int, MPI_Win_lock_all, (int assert, MPI_Win win));
RC_DECL(int, MPI_Win_unlock, (int rank, MPI_Win win));
RC_DECL(int, MPI_Win_unlock_all, (MPI_Win win));
RC_DECL(int, MPI_Win_flush, (int rank, MPI_Win win));
RC_DECL(int, MPI_Win_flush_all, (MPI_Win win));
RC_DECL(int, MPI_Win_flush_local, (int rank, MPI_Win win));
RC_DECL(int, MPI_Win_flush_local_all, (MPI_Win win));
RC_DECL(int, MPI_Win_sync, (MPI_Win win));

RC_DECL(int, MPI_Win_get_attr, (MPI_Win win, int win_keyval,
				void *attribute_val, int *flag));
RC_DECL(int, MPI_Win_get_group, (MPI_Win win, MPI_Group *group));
RC_DECL(int, MPI_Win_set_name, (MPI_Win win, const char *win_name));
RC_DECL(int, MPI_Win_get_name, (MPI_Win win, char *win_name,
				int *resultlen));
RC_DECL(int, MPI_Win_set_errhandler, (MPI_Win win,
				      MPI_Errhandler errhandler));
RC_DECL(int, MPI_Win_get_errhandler, (MPI_Win win,
				      MPI_Errhandler *errhandler));

/* ---- Persistent collectives (MPI-4 chapter 6.12; coll/) -------------------
 * Each returns an inactive persistent request: MPI_Start / MPI_Startall
 * start it any number of times, every MPI_Wait / MPI_Test completes it,
 * MPI_Request_free frees it. Every rank inits its persistent collectives
 * in the same order as its other collectives on the communicator; it may
 * start them in any order. MPI_VERSION stays 3.
 */
RC_DECL(int, MPI_Barrier_init,
	(MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Bcast_init,
	(void *buffer, int count, MPI_Datatype datatype, int root,
	 MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Reduce_init,
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
	 MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Allreduce_init,
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
	 MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Reduce_scatter_block_init,
	(const void *sendbuf, void *recvbuf, int recvcount,
	 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Reduce_scatter_init,
	(const void *sendbuf, void *recvbuf, const int recvcounts[],
	 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Scan_init,
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
	 MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Exscan_init,
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
	 MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Gather_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	 MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Gatherv_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, const int recvcounts[], const int displs[],
	 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Scatter_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	 MPI_Comm comm, MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Scatterv_init,
	(const void *sendbuf, const int sendcounts[], const int displs[],
	 MPI_Datatype sendtype, void *recvbuf, int recvcount,
	 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Allgather_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Allgatherv_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, const int recvcounts[], const int displs[],
	 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Alltoall_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Alltoallv_init,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Alltoallw_init,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
	 const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
/* Persistent neighbourhood collectives (MPI-4), on Cartesian and graph
 * communicators like the blocking ones. */
RC_DECL(int, MPI_Neighbor_allgather_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Neighbor_allgatherv_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, const int recvcounts[], const int displs[],
	 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoall_init,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoallv_init,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
	 MPI_Info info, MPI_Request *request));
RC_DECL(int, MPI_Neighbor_alltoallw_init,
	(const void *sendbuf, const int sendcounts[],
	 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
	 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
	 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
	 MPI_Request *request));
/* Window services (issue 11 on the machinery of issue 12): handles,
 * attributes on keyvals, the program's own error handlers, hints. A
 * window's user error handler gets the window and the code of every error
 * raised on it (requests of MPI_Rput & co. included). Hints honoured or
 * accepted: no_locks, accumulate_ordering, accumulate_ops, same_size,
 * same_disp_unit, alloc_shared_noncontig; MPI_Win_get_info returns those
 * in effect. */
RC_DECL(MPI_Fint, MPI_Win_c2f, (MPI_Win win));
RC_DECL(MPI_Win, MPI_Win_f2c, (MPI_Fint win));
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
RC_DECL(int, MPI_Win_create_errhandler,
	(MPI_Win_errhandler_function * win_errhandler_fn,
	 MPI_Errhandler *errhandler));
RC_DECL(int, MPI_Win_call_errhandler, (MPI_Win win, int errorcode));
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
				       void *extra_state,
				       void *attribute_val_in,
				       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
					 void *attribute_val,
					 void *extra_state);
MPI_Win_copy_attr_function rc_mpi_win_null_copy_fn, rc_mpi_win_dup_fn;
MPI_Win_delete_attr_function rc_mpi_win_null_delete_fn;
#define MPI_WIN_NULL_COPY_FN rc_mpi_win_null_copy_fn
#define MPI_WIN_DUP_FN rc_mpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN rc_mpi_win_null_delete_fn
RC_DECL(int, MPI_Win_create_keyval,
	(MPI_Win_copy_attr_function * win_copy_attr_fn,
	 MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
	 void *extra_state));
RC_DECL(int, MPI_Win_free_keyval, (int *win_keyval));
RC_DECL(int, MPI_Win_set_attr,
	(MPI_Win win, int win_keyval, void *attribute_val));
RC_DECL(int, MPI_Win_delete_attr, (MPI_Win win, int win_keyval));
RC_DECL(int, MPI_Win_set_info, (MPI_Win win, MPI_Info info));
RC_DECL(int, MPI_Win_get_info, (MPI_Win win, MPI_Info *info_used));

/* ---- Buffered mode, MPI-4 nonblocking sendrecv (issue 13; pt2pt/) --------
 * MPI_Bsend & co. pack the message into the buffer attached with
 * MPI_Buffer_attach and return at once; each message takes its packed size
 * (MPI_Pack_size) plus at most MPI_BSEND_OVERHEAD bytes of it until it has
 * left. No room (or no buffer): MPI_ERR_BUFFER. MPI_Buffer_detach waits
 * until the buffered messages have left. An MPI_Ibsend request is complete
 * on return (the copy is made): MPI_Cancel leaves it alone.
 * MPI_Isendrecv(_replace) completes when both halves have; its status is
 * the receive's; MPI_Cancel leaves it alone (both halves complete).
 */
#define MPI_BSEND_OVERHEAD 96
RC_DECL(int, MPI_Buffer_attach, (void *buffer, int size));
RC_DECL(int, MPI_Buffer_detach, (void *buffer_addr, int *size));
RC_DECL(int, MPI_Bsend,
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	 MPI_Comm comm));
RC_DECL(int, MPI_Ibsend,
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	 MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Bsend_init,
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	 MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Isendrecv,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
	 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
	 int source, int recvtag, MPI_Comm comm, MPI_Request *request));
RC_DECL(int, MPI_Isendrecv_replace,
	(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
	 int source, int recvtag, MPI_Comm comm, MPI_Request *request));

#ifdef __cplusplus
}
#endif
#endif /* RCMPI_MPI_H */
